import EventLoop
import Glibc
import Sockets
import WireProtocol

/// The daemon's end of an extension's fd-3 socket: framed, decoded messages in,
/// encoded messages out. A malformed or oversized message is a violation, and the
/// extension closing its end is the end of the channel; what to do with either (kill,
/// reason `protocol`; stop, reason `closed`) is the owner's decision.
///
/// A wake-up reads at most ``bytesPerWakeup``: every message costs the loop work, so an
/// extension that floods (thousands of `defaults` at once) is served a slice per turn.
package final class ExtensionChannel {
    static let bytesPerWakeup = 16 << 10

    private var connection: Connection?
    private var framer = LineFramer()
    private let onMessage: (ExtensionToSupervisor) -> Void
    private let onViolation: (ProtocolError) -> Void
    private let onEndOfFile: () -> Void

    /// Takes ownership of `fd`. `onEndOfFile` runs when the extension closed its end (or it
    /// failed), not when the daemon closes the channel.
    init(
        loop: EventLoop, fd: Int32,
        onMessage: @escaping (ExtensionToSupervisor) -> Void,
        onViolation: @escaping (ProtocolError) -> Void,
        onEndOfFile: @escaping () -> Void
    ) throws(SystemError) {
        self.onMessage = onMessage
        self.onViolation = onViolation
        self.onEndOfFile = onEndOfFile
        connection = try Connection(
            loop: loop, fd: fd, maxBytesPerWakeup: Self.bytesPerWakeup,
            onData: { [unowned self] _, bytes in self.receive(bytes) },
            onClose: { [unowned self] _ in
                guard self.connection != nil else { return }  // closed by ``close()``
                self.connection = nil
                self.onEndOfFile()
            }
        )
        // An update or terminate starts the extension's work: held, it would wait for
        // the rest of the wake-up (a pull's answer) for nothing.
        connection?.writesAtOnce = true
        // The extension waits for its next message in a blocking read, which taking its
        // result would wake for nothing before the result's push is out.
        connection?.takesReadBytesAfterWrites = true
    }

    var isOpen: Bool { connection != nil }

    package func send(_ message: SupervisorToExtension) {
        connection?.send(message.encodedLine())
    }

    package func close() {
        let closing = connection
        connection = nil
        closing?.close()
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
