import ControlProtocol
import EventLoop
import Glibc
import Sockets
import WireProtocol

/// Serves `control.sock`: one request per connection, answered by one response
/// or, for following commands, a stream of them.
package final class ControlServer {
    private let loop: EventLoop
    private var listener: Listener?
    private var sessions: [Int32: ControlSession] = [:]
    private let handler: (ControlRequest, ControlSession) -> Void
    private let path: String
    /// After ``stopAccepting()``: only requests in ``runsWhileStopping(_:)`` are run.
    private var isStopping: Bool { listener == nil }
    private var whenDrained: (() -> Void)?
    private var drainTimer: EventSource?
    /// Who may run what; replaced on reload.
    private(set) var access: ControlAccess
    /// Called with each refused request and why (an event).
    package var onRefused: ((ControlAccess.Peer, String) -> Void)?
    /// Whether a pid is one of the processes the daemon runs.
    package var isSupervised: (pid_t) -> Bool = { _ in false }

    /// Binds `path` with mode 0660, owned by root and the group of `access`: only they can
    /// connect, and each request is checked against the peer's role.
    /// `inherited`: the socket systemd passed for `path` (socket activation).
    package init(
        loop: EventLoop, path: String, inherited: Int32? = nil, access: ControlAccess,
        handler: @escaping (ControlRequest, ControlSession) -> Void
    ) throws(SystemError) {
        self.loop = loop
        self.handler = handler
        self.path = path
        self.access = access
        listener = try Listener(loop: loop, path: path, mode: 0o660, inherited: inherited) { [unowned self] fd in
            self.accept(fd)
        }
        try apply(access)
    }

    /// New roles (a reload): the socket's group follows `control_group`.
    package func apply(_ access: ControlAccess) throws(SystemError) {
        self.access = access
        guard let group = access.socketGroup else { return }
        guard chown(path, uid_t.max, group) == 0 else { throw SystemError("chown \(path) to group \(group)") }
    }

    /// Stops accepting, ends every session and removes the socket file.
    package func close() {
        stopAccepting()
        drainTimer = nil
        for session in sessions.values { session.connection?.close() }
        sessions.removeAll()
    }

    /// The daemon stops: no more connections are accepted (under socket activation they
    /// wait in the backlog for the next daemon), and a request that would start or change
    /// anything is refused. Sessions already accepted are still answered.
    package func stopAccepting() {
        listener?.close()
        listener = nil
    }

    /// How long the last step of a stop waits for a client that was accepted but has not
    /// sent its request yet.
    static let stopWaitBound = Duration.seconds(1)

    /// Closes every session once none is still to send its request (at most
    /// ``stopWaitBound`` from now), then calls `done`: a client the daemon accepted just
    /// before the stop is answered, not dropped.
    package func closeOnceRequestsAreIn(then done: @escaping () -> Void) {
        stopAccepting()
        whenDrained = done
        drainTimer = loop.addTimer(after: Self.stopWaitBound, accuracy: .milliseconds(10)) { [unowned self] in self.finishDraining() }
        settleIfDrained()
    }

    private func settleIfDrained() {
        guard whenDrained != nil, sessions.values.allSatisfy(\.requestReceived) else { return }
        // After the callbacks that answered: a reply written there is flushed by close().
        drainTimer = loop.addTimer(after: .zero) { [unowned self] in self.finishDraining() }
    }

    private func finishDraining() {
        let done = whenDrained
        whenDrained = nil
        close()
        done?()
    }

    /// How long a client may take to send its whole request before it is dropped.
    static let requestTimeout = Duration.seconds(10)

    private func accept(_ fd: Int32) {
        let session = ControlSession()
        session.peer = ControlAccess.peer(of: fd)
        if let peer = session.peer, peer.uid == access.owner {
            // Only the daemon's own uid needs it: looking costs a read per supervised group.
            session.peer?.isSupervised = isSupervised(peer.pid)
        }
        session.requestTimer = loop.addTimer(after: Self.requestTimeout, accuracy: .milliseconds(500)) { [unowned session] in
            session.reply(.failure("no request within \(Self.requestTimeout)", code: .badRequest))
        }
        do {
            session.connection = try Connection(
                loop: loop, fd: fd, maxQueuedBytes: ControlLimits.answerBytes,
                onData: { [unowned self, unowned session] _, bytes in self.receive(bytes, for: session) },
                onClose: { [unowned self] connection in
                    self.sessions.removeValue(forKey: connection.fd)?.ended()
                    self.settleIfDrained()
                }
            )
            sessions[fd] = session
        } catch {
            Glibc.close(fd)
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, for session: ControlSession) {
        guard !session.requestReceived else { return }
        defer { settleIfDrained() }
        let line: ArraySlice<UInt8>
        do {
            try session.framer.append(bytes)
            // Bytes without a whole request (a partial or blank line) keep the timer: a
            // client that stops mid-line is answered and dropped like a silent one.
            guard let complete = try session.framer.nextLine() else { return }
            line = complete
        } catch {
            session.requestReceived = true
            session.requestTimer = nil
            return session.reply(.failure("bad request: \(error)", code: .badRequest))
        }
        session.requestReceived = true
        session.requestTimer = nil
        do {
            let request = try ControlCodec.decode(ControlRequest.self, from: line)
            guard let peer = session.peer else { return session.reply(.failure("the peer's credentials are unknown", code: .refused)) }
            if let refusal = access.refusal(of: request, by: peer) {
                onRefused?(peer, refusal)
                return session.reply(.failure(refusal, code: .refused))
            }
            guard !isStopping || Self.runsWhileStopping(request) else {
                return session.reply(.failure("extensiond is stopping: \(request.command.rawValue) was not run", code: .failed))
            }
            handler(request, session)
        } catch {
            session.reply(.failure("bad request: \(error)", code: .badRequest))
        }
    }

    /// The reading commands, except `pull`, which may launch its extension.
    static func runsWhileStopping(_ request: ControlRequest) -> Bool {
        ControlAccess.isReading(request) && request.command != .pull
    }
}

/// One client connection on the control socket, answered through ``reply(_:)``
/// or ``stream(_:)``.
package final class ControlSession {
    fileprivate(set) var connection: Connection?
    fileprivate var framer = LineFramer(maxLineLength: ControlLimits.requestBytes)
    fileprivate var requestReceived = false
    fileprivate var requestTimer: EventSource?
    /// Who connected (SO_PEERCRED), read at accept.
    fileprivate(set) var peer: ControlAccess.Peer?
    /// Runs once when the client goes away: following commands unsubscribe here.
    var onEnd: (() -> Void)?

    /// Sends the only (or last) response and closes the connection; an answer over
    /// ``ControlLimits/answerBytes`` becomes an error answer.
    func reply(_ response: ControlResponse) {
        connection?.send(ControlCodec.answerLine(response))
        connection?.closeWhenFlushed()
    }

    /// Sends an answer already written as its line (``StatusAnswer``) and closes. Written
    /// at once: held, the line would be copied into the connection's queue (some 70 KiB for
    /// 200 entries) only to be written when the callbacks end.
    func reply(line: [UInt8]) {
        connection?.send(line, atOnce: true)
        connection?.closeWhenFlushed()
    }

    /// Sends one response of a stream and keeps the connection open.
    func stream(_ response: ControlResponse) {
        connection?.send(ControlCodec.answerLine(response))
    }

    fileprivate func ended() {
        connection = nil
        requestTimer = nil
        onEnd?()
        onEnd = nil
    }
}
