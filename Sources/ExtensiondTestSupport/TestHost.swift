import Glibc
import HostProtocol

/// A host on `host.sock`, for tests: sends ``HostToSupervisor`` messages (or raw bytes)
/// and reads ``SupervisorToHost`` messages with a timeout. Blocking, one thread.
public final class TestHost: @unchecked Sendable {
    private let fd: Int32
    private var framer = LineFramer()
    /// Messages read while waiting for another one, in arrival order.
    private var backlog: [SupervisorToHost] = []

    /// Connects to the host socket at `path`.
    public init(path: String) throws {
        fd = try connectUnixStream(to: path)
    }

    deinit { close(fd) }

    /// Sends one message.
    public func send(_ message: HostToSupervisor) throws {
        try send(bytes: message.encodedLine())
    }

    /// Sends `bytes` as they are (for malformed lines).
    public func send(bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw TestSupportError("send on host.sock: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// The bytes the daemon has written that are not read yet, looked at without reading
    /// them (from any thread).
    public var bytesWaiting: Int {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        return max(0, recv(fd, &buffer, buffer.count, Int32(MSG_PEEK | MSG_DONTWAIT)))
    }

    /// The next message, whatever it is.
    public func receive(timeout: Double = 5) throws -> SupervisorToHost {
        try receive(timeout: timeout) { _ in true }
    }

    /// The first message `matching` accepts; the others stay queued for later calls.
    public func receive(timeout: Double = 5, matching: (SupervisorToHost) -> Bool) throws -> SupervisorToHost {
        if let index = backlog.firstIndex(where: matching) { return backlog.remove(at: index) }
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while true {
            guard let message = try readMessage(until: deadline) else {
                throw TestSupportError("no matching message on host.sock within \(timeout) s; got \(backlog)")
            }
            if matching(message) { return message }
            backlog.append(message)
        }
    }

    /// The first message `matching` accepts among those already come, without waiting.
    public func take(matching: (SupervisorToHost) -> Bool) throws -> SupervisorToHost? {
        if let index = backlog.firstIndex(where: matching) { return backlog.remove(at: index) }
        while let message = try readMessage(until: .now) {
            if matching(message) { return message }
            backlog.append(message)
        }
        return nil
    }

    /// What came and was not taken yet, for the message of a failed expectation.
    public var queued: [SupervisorToHost] { backlog }

    /// Sends `pull` and returns the `snapshot` or `error` answering it. `wait: true`: an
    /// expired snapshot is answered by its update rather than at once.
    public func pull(
        _ extensionID: String, id: RequestID, mode: DisplayMode = .compact, wait: Bool? = nil,
        timeout: Double = 5
    ) throws -> SupervisorToHost {
        try send(.pull(.init(id: id, extensionID: extensionID, mode: mode, maxSize: Size(width: 320, height: 160), wait: wait)))
        return try receive(timeout: timeout) { $0.answerID == id }
    }

    /// Whether the daemon closes the connection within `timeout` (reading and keeping
    /// whatever comes before the end).
    public func closedByPeer(timeout: Double = 5) throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        do {
            while let message = try readMessage(until: deadline) { backlog.append(message) }
            return false
        } catch is PeerClosed {
            return true
        }
    }

    /// The next complete message, or nil at `deadline`; throws ``PeerClosed`` at end of file.
    private func readMessage(until deadline: ContinuousClock.Instant) throws -> SupervisorToHost? {
        while true {
            if let line = try framer.nextLine() {
                return try SupervisorToHost.decode(line: line)
            }
            // Past the deadline, one poll that does not wait still reads what has come.
            let left = max(.zero, ContinuousClock.now.duration(to: deadline))
            var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = left == .zero ? 0 : Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = Glibc.poll(&poll, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else {
                if left == .zero { return nil }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw PeerClosed() }
            try framer.append(chunk[..<count])
        }
    }

    /// The daemon closed the connection.
    private struct PeerClosed: Error {}
}
