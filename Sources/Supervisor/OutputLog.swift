import Glibc

/// A process's captured stdout and stderr: timestamped lines in
/// `<directory>/<name>.log`, rotated at `maxSize` into `.1`, `.2`… keeping `files`
/// files in all. Disk use is bounded by `maxSize * files`; memory by one partial line.
final class OutputLog {
    let path: String
    private let maxSize: UInt64
    private let files: Int
    private var fd: Int32 = -1
    private var size: UInt64 = 0
    /// The start of a line whose end has not arrived yet.
    private var partial: [UInt8] = []
    /// The line being written, kept to reuse its storage.
    private var line: [UInt8] = []
    private var followers: [ObjectIdentifier: (String) -> Void] = [:]

    /// Longest line kept whole; longer output is split, so a flood without newlines
    /// cannot grow the daemon's memory.
    static let maxLineBytes = 4096

    init(directory: String, name: String, maxSize: UInt64, files: Int) {
        path = directory + "/" + name + ".log"
        self.maxSize = max(maxSize, 4096)
        self.files = max(files, 1)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Appends raw output; complete lines are written with a timestamp (the time of
    /// this call: one chunk of output arrived at once).
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard var cursor = bytes.baseAddress else { return }
        let end = cursor + bytes.count
        let stamp = Array(WallClock.iso8601().utf8)
        while cursor < end {
            let room = Self.maxLineBytes - partial.count
            // A newline right after a full line still ends that line.
            if let newline = memchr(cursor, Int32(UInt8(ascii: "\n")), min(room + 1, end - cursor)) {
                let length = UnsafeRawPointer(newline) - cursor
                emit(UnsafeRawBufferPointer(start: cursor, count: length), stamp: stamp)
                cursor += length + 1
            } else if end - cursor >= room {
                emit(UnsafeRawBufferPointer(start: cursor, count: room), stamp: stamp)
                cursor += room
            } else {
                partial.append(contentsOf: UnsafeRawBufferPointer(start: cursor, count: end - cursor))
                cursor = end
            }
        }
    }

    /// Writes what is left of an unterminated last line and closes the file until the
    /// next output (the process ended; 200 idle extensions should not hold 200 fds).
    func flush() {
        if !partial.isEmpty { emit(UnsafeRawBufferPointer(start: nil, count: 0), stamp: Array(WallClock.iso8601().utf8)) }
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// Calls `body` with every line written from now on, until ``unfollow(_:)``.
    func follow(_ token: AnyObject, _ body: @escaping (String) -> Void) {
        followers[ObjectIdentifier(token)] = body
    }

    func unfollow(_ token: AnyObject) {
        followers.removeValue(forKey: ObjectIdentifier(token))
    }

    /// The last `count` lines of the current file (and the previous one if needed).
    func lastLines(_ count: Int) -> [String] {
        var lines: [String] = []
        for file in [path + ".1", path] {
            lines += String(decoding: FileSystem.read(file) ?? [], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        }
        return Array(lines.suffix(count))
    }

    /// Writes `stamp`, the partial line and `end` as one line.
    private func emit(_ end: UnsafeRawBufferPointer, stamp: [UInt8]) {
        line.removeAll(keepingCapacity: true)
        line += stamp
        line.append(UInt8(ascii: " "))
        line += partial
        line += end
        line.append(UInt8(ascii: "\n"))
        partial.removeAll(keepingCapacity: true)
        if fd < 0 { reopen() }
        if size + UInt64(line.count) > maxSize && size > 0 { rotate() }
        if fd >= 0 {
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            size += UInt64(max(0, written))
        }
        guard !followers.isEmpty else { return }
        let text = String(decoding: line, as: UTF8.self)
        for follower in followers.values { follower(text) }
    }

    private func rotate() {
        if fd >= 0 { close(fd) }
        if files == 1 {
            unlink(path)
        } else {
            for index in stride(from: files - 1, through: 1, by: -1) {
                let from = index == 1 ? path : "\(path).\(index - 1)"
                rename(from, "\(path).\(index)")
            }
        }
        reopen()
    }

    private func reopen() {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        var info = stat()
        size = fd >= 0 && fstat(fd, &info) == 0 ? UInt64(info.st_size) : 0
    }
}
