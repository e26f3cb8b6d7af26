import HostProtocol

#if canImport(Glibc)
import Glibc
#endif

/// A host's connection to `host.sock`: blocking writes, and reads that the caller can
/// multiplex with poll(2) on ``descriptor``; ``request(_:)`` waits for one answer.
///
/// ```swift
/// let connection = try HostConnection(path: HostSocket.path { getenv($0).map { String(cString: $0) } })
/// try connection.send(.list(.init(id: 1)))
/// for message in try connection.receive() { ... }
/// // A containing app: write what its widget reads, then have it reload.
/// _ = try connection.request(.defaults(.init(id: 2, group: "group.demo", op: .set, key: "city", value: "Oslo")))
/// _ = try connection.request(.reloadExtensions(.init(id: 3, extensions: ["demo.widget"])))
/// ```
public final class HostConnection {
    /// The socket's path.
    public let path: String
    /// The connected socket, for poll(2). Closed when the connection is released.
    public let descriptor: Int32
    private var framer = LineFramer()
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Messages read by ``request(_:)`` while it waited for its answer, for ``receive()``.
    private var heldMessages: [SupervisorToHost] = []

    /// Connects to `path`. While nothing listens there yet (no socket file, or connections
    /// refused, as before the daemon binds it), tries again every `interval` until
    /// `timeout` has passed.
    public init(path: String, timeout: Duration = .seconds(10), interval: Duration = .milliseconds(200))
        throws(HostConnectionError)
    {
        let deadline = Self.monotonicNanoseconds() + Self.nanoseconds(timeout)
        while true {
            switch Self.connect(path) {
            case .success(let descriptor):
                self.path = path
                self.descriptor = descriptor
                return
            case .failure(let failure):
                let mayAppear = failure.errno == ENOENT || failure.errno == ECONNREFUSED
                guard mayAppear, Self.monotonicNanoseconds() < deadline else {
                    throw .unreachable(path: path, errno: failure.errno)
                }
                Self.sleep(nanoseconds: Self.nanoseconds(interval))
            }
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends one message, blocking until the whole line is written.
    public func send(_ message: HostToSupervisor) throws(HostConnectionError) {
        let line = message.encodedLine()
        var sent = 0
        while sent < line.count {
            let result = line.withUnsafeBytes { bytes in
                Glibc.send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "send to \(path)", errno: errno)
            }
            sent += result
        }
    }

    /// Sends a request that carries an `id` and reads until the message answering it (its
    /// answer or an `error` with that `id`). What arrives before it (pushes, other answers)
    /// is returned by the next ``receive()``, in order. A request without `id` throws
    /// ``HostConnectionError/Code/unanswerable`` and is not sent.
    public func request(_ message: HostToSupervisor) throws(HostConnectionError) -> SupervisorToHost {
        guard let id = message.requestID else { throw .unanswerable(message.type) }
        try send(message)
        while true {
            var messages = try readLines()
            if let index = messages.firstIndex(where: { $0.answerID == id }) {
                let answer = messages.remove(at: index)
                heldMessages += messages
                return answer
            }
            heldMessages += messages
        }
    }

    /// Reads once, blocking until something arrives, and returns the messages completed by
    /// it in arrival order: none when only part of a line arrived. Messages held back by
    /// ``request(_:)`` come first, without reading.
    public func receive() throws(HostConnectionError) -> [SupervisorToHost] {
        guard heldMessages.isEmpty else {
            defer { heldMessages.removeAll() }
            return heldMessages
        }
        return try readLines()
    }

    private func readLines() throws(HostConnectionError) -> [SupervisorToHost] {
        var count: Int
        repeat {
            count = readBuffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        } while count < 0 && errno == EINTR
        if count < 0 { throw .io(operation: "read from \(path)", errno: errno) }
        if count == 0 { throw .closed }
        var messages: [SupervisorToHost] = []
        do {
            try framer.append(readBuffer[0..<count])
            while let line = try framer.nextLine() {
                messages.append(try SupervisorToHost.decode(line: line))
            }
        } catch {
            throw .protocolViolation(error)
        }
        return messages
    }

    /// One attempt: the connected descriptor, or the errno of the failure.
    private static func connect(_ path: String) -> Result<Int32, ConnectFailure> {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return .failure(ConnectFailure(errno: ENAMETOOLONG)) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(ConnectFailure(errno: errno)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            return .failure(ConnectFailure(errno: code))
        }
        return .success(descriptor)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    private static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    private static func sleep(nanoseconds: Int64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

/// The errno of a failed connection attempt.
private struct ConnectFailure: Error {
    let errno: Int32
}
