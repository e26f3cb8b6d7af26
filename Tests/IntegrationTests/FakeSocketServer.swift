import ExtensiondTestSupport
import Foundation

/// A stand-in for one of the daemon's sockets (control.sock, host.sock) in a test: a UNIX
/// listener on background threads that greets each connection with `greeting` lines,
/// answers each line it receives with the lines `reply` returns, and records the lines.
final class FakeSocketServer: @unchecked Sendable {
    let path: String
    private let listener: Int32
    private let greeting: [String]
    private let reply: @Sendable (String) -> [String]
    private let lock = NSLock()
    private var receivedLines: [String] = []
    private var stopped = false
    private let finished = DispatchGroup()

    init(path: String, greeting: [String] = [], reply: @escaping @Sendable (String) -> [String] = { _ in [] }) throws {
        self.path = path
        self.greeting = greeting
        self.reply = reply
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8) + [0])
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            let message = String(cString: strerror(errno))
            close(listener)
            throw TestSupportError("listen on \(path): \(message)")
        }
        spawn { [self] in acceptLoop() }
    }

    deinit { stop() }

    /// Every line received so far, on all connections, in arrival order.
    var lines: [String] { lock.withLock { receivedLines } }

    /// Stops accepting and serving, and waits for the threads to end.
    func stop() {
        let alreadyStopped = lock.withLock {
            defer { stopped = true }
            return stopped
        }
        guard !alreadyStopped else { return }
        finished.wait()
        close(listener)
        unlink(path)
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        finished.enter()
        Thread.detachNewThread { [finished] in
            body()
            finished.leave()
        }
    }

    /// Waits in slices of 50 ms so that `stop()` is noticed.
    private func waitReadable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while !isStopped {
            if poll(&entry, 1, 50) > 0 { return true }
        }
        return false
    }

    private func acceptLoop() {
        while waitReadable(listener) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            spawn { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        send(greeting, on: connection)
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while waitReadable(connection) {
            let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            pending += chunk[0..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                lock.withLock { receivedLines.append(line) }
                send(reply(line), on: connection)
            }
        }
    }

    private func send(_ lines: [String], on connection: Int32) {
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            offset += written
        }
    }
}
