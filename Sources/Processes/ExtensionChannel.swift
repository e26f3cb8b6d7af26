import EventLoop
import Glibc
import Sockets
import WireProtocol

/// The daemon's end of an extension's fd-3 socket: framed, decoded messages in,
/// encoded messages out. A malformed or oversized message is a violation; what to do
/// with it (kill, reason `protocol`) is the owner's decision.
package final class ExtensionChannel {
    private var connection: Connection?
    private var framer = LineFramer()
    private let onMessage: (ExtensionToSupervisor) -> Void
    private let onViolation: (ProtocolError) -> Void

    /// Takes ownership of `fd`.
    init(loop: EventLoop, fd: Int32,
         onMessage: @escaping (ExtensionToSupervisor) -> Void,
         onViolation: @escaping (ProtocolError) -> Void) throws(SystemError) {
        self.onMessage = onMessage
        self.onViolation = onViolation
        connection = try Connection(
            loop: loop, fd: fd,
            onData: { [unowned self] _, bytes in self.receive(bytes) },
            onClose: { _ in }
        )
    }

    package func send(_ message: SupervisorToExtension) {
        connection?.send(message.encodedLine())
    }

    package func close() {
        connection?.close()
        connection = nil
    }

    /// Delivers what the extension has already written, now, without waiting for the loop.
    package func readPending() {
        connection?.drain(maxReads: 1)
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) {
        do throws(ProtocolError) {
            try framer.append(bytes)
            while connection != nil, let line = try framer.nextLine() {
                onMessage(try ExtensionToSupervisor.decode(line: line))
            }
        } catch {
            close()
            onViolation(error)
        }
    }
}
