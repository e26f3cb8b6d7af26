import ControlProtocol
import EventLoop
import Glibc
import WireProtocol

/// Serves `control.sock`: one request per connection, answered by one response
/// or, for following commands, a stream of them.
final class ControlServer {
    private let loop: EventLoop
    private var listener: Listener?
    private var sessions: [Int32: ControlSession] = [:]
    private let handler: (ControlRequest, ControlSession) -> Void

    /// Binds `path` with mode 0660: root and the socket's group may control the daemon.
    init(loop: EventLoop, path: String, handler: @escaping (ControlRequest, ControlSession) -> Void) throws(SystemError) {
        self.loop = loop
        self.handler = handler
        listener = try Listener(loop: loop, path: path, mode: 0o660) { [unowned self] fd in
            self.accept(fd)
        }
    }

    /// Stops accepting, ends every session and removes the socket file.
    func close() {
        listener?.close()
        listener = nil
        for session in sessions.values { session.connection?.close() }
        sessions.removeAll()
    }

    /// How long a client may take to send its request before it is dropped.
    static let requestTimeout = Duration.seconds(10)

    private func accept(_ fd: Int32) {
        let session = ControlSession()
        session.requestTimer = try? loop.addTimer(after: Self.requestTimeout, accuracy: .milliseconds(500)) { [unowned session] in
            session.reply(.failure("no request within \(Self.requestTimeout)"))
        }
        do {
            session.connection = try Connection(
                loop: loop, fd: fd, maxQueuedBytes: ControlCodec.maxResponseBytes,
                onData: { [unowned self, unowned session] _, bytes in self.receive(bytes, for: session) },
                onClose: { [unowned self] connection in
                    self.sessions.removeValue(forKey: connection.fd)?.ended()
                }
            )
            sessions[fd] = session
        } catch {
            Glibc.close(fd)
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, for session: ControlSession) {
        guard !session.requestReceived else { return }
        session.requestTimer = nil
        let line: ArraySlice<UInt8>
        do {
            try session.framer.append(bytes)
            guard let complete = try session.framer.nextLine() else { return }
            line = complete
        } catch {
            session.requestReceived = true
            return session.reply(.failure("bad request: \(error)"))
        }
        session.requestReceived = true
        do {
            let request = try ControlCodec.decode(ControlRequest.self, from: line)
            handler(request, session)
        } catch {
            session.reply(.failure("bad request: \(error)"))
        }
    }
}

/// One client connection on the control socket, answered through ``reply(_:)``
/// or ``stream(_:)``.
final class ControlSession {
    fileprivate(set) var connection: Connection?
    fileprivate var framer = LineFramer(maxLineLength: ControlCodec.maxRequestBytes)
    fileprivate var requestReceived = false
    fileprivate var requestTimer: EventSource?
    /// Runs once when the client goes away: following commands unsubscribe here.
    var onEnd: (() -> Void)?

    /// Sends the only (or last) response and closes the connection.
    func reply(_ response: ControlResponse) {
        connection?.send(ControlCodec.line(response))
        connection?.closeWhenFlushed()
    }

    /// Sends one response of a stream and keeps the connection open.
    func stream(_ response: ControlResponse) {
        connection?.send(ControlCodec.line(response))
    }

    fileprivate func ended() {
        connection = nil
        requestTimer = nil
        onEnd?()
        onEnd = nil
    }
}
