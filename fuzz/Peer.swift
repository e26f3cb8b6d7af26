import ExtensiondTestSupport
import Glibc

/// One non-blocking stream socket to the daemon, as a fuzzed peer holds it: writes that
/// give up when the daemon stops reading, reads that take what is there, and counts of
/// the lines received and of those that are errors.
final class Peer {
    private(set) var fd: Int32
    private(set) var isClosed = false
    private(set) var linesReceived = 0
    /// Lines that contain `errorMarker`: the daemon's error answers.
    private(set) var errorsReceived = 0
    private let errorMarker: [UInt8]
    /// The bytes after the last line feed received.
    private var partial: [UInt8] = []
    private let keepLines: Bool
    /// Complete lines received, when `keepLines`.
    private(set) var lines: [[UInt8]] = []

    /// The marker of a host or extension error line, and of a failed control answer.
    static let hostError = Array(#""type":"error""#.utf8)
    static let controlError = Array(#""ok":false"#.utf8)

    init(fd: Int32, keepLines: Bool = false, errorMarker: [UInt8] = Peer.hostError) {
        self.fd = fd
        self.keepLines = keepLines
        self.errorMarker = errorMarker
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Connects to the UNIX socket at `path`; nil when the daemon refused.
    static func connect(to path: String, keepLines: Bool = false, errorMarker: [UInt8] = Peer.hostError) -> Peer? {
        guard let fd = try? connectUnixStream(to: path) else { return nil }
        return Peer(fd: fd, keepLines: keepLines, errorMarker: errorMarker)
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// Writes `bytes`, waiting at most `timeout` ms for room; false when the daemon closed
    /// the connection or stopped reading.
    @discardableResult
    func write(_ bytes: [UInt8], timeout: Int32 = 2000) -> Bool {
        var offset = 0
        while offset < bytes.count && !isClosed {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EINTR) {
                // Read while waiting: a daemon blocked on writing to us would not read.
                read()
                guard wait(for: POLLOUT, timeout: timeout) else { return false }
            } else {
                // The daemon may have answered what it had and closed before the rest was
                // sent (a line feed mutated into a request's first bytes): read that answer.
                read()
                close()
                return false
            }
        }
        return !isClosed
    }

    /// Reads what is there (waiting at most `timeout` ms for the first byte).
    func read(timeout: Int32 = 0) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var waited = false
        while !isClosed {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                take(chunk[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 && errno == EAGAIN && !waited && timeout > 0 {
                waited = true
                guard wait(for: POLLIN, timeout: timeout) else { return }
            } else if count < 0 && errno == EAGAIN {
                return
            } else {
                close()
            }
        }
    }

    /// Takes out the complete lines kept so far.
    func takeLines() -> [[UInt8]] {
        defer { lines.removeAll() }
        return lines
    }

    private func take(_ bytes: ArraySlice<UInt8>) {
        partial += bytes
        var start = 0
        while let newline = partial[start...].firstIndex(of: 0x0A) {
            let line = partial[start..<newline]
            linesReceived += 1
            if Self.contains(line, errorMarker) { errorsReceived += 1 }
            if keepLines { lines.append(Array(line)) }
            start = newline + 1
        }
        partial.removeSubrange(0..<start)
        // A snapshot line can be a megabyte; what it says past that does not matter here.
        if partial.count > 4 << 20 { partial.removeAll() }
    }

    private static func contains(_ line: ArraySlice<UInt8>, _ marker: [UInt8]) -> Bool {
        guard let first = marker.first, line.count >= marker.count else { return false }
        var index = line.startIndex
        while let found = line[index...].firstIndex(of: first) {
            if line[found...].starts(with: marker) { return true }
            index = found + 1
        }
        return false
    }

    private func wait(for events: Int32, timeout: Int32) -> Bool {
        var ready = pollfd(fd: fd, events: Int16(events), revents: 0)
        return poll(&ready, 1, timeout) == 1
    }
}
