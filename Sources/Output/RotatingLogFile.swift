import Glibc
import Sockets

/// One append-only log file, rotated at `maxSize` into `.1`, `.2`… keeping `files` files
/// in all, so its disk use is bounded by `maxSize * files`. Opened on the first write and
/// closed by ``close()`` (an idle process holds no descriptor); reopened when someone
/// deleted it, so that a deleted log does not stay allocated.
final class RotatingLogFile {
    let path: String
    private let maxSize: UInt64
    private let files: Int
    private var fd: Int32 = -1
    private var size: UInt64 = 0

    init(path: String, maxSize: UInt64, files: Int) {
        self.path = path
        self.maxSize = max(maxSize, 4096)
        self.files = max(files, 1)
    }

    deinit { close() }

    /// Appends `line` (newline included), rotating first when it would overflow the file.
    /// A line is written whole or not at all: a short write (a full disk) is cut off
    /// again. Returns nil, or why the line was not written.
    func write(_ line: [UInt8]) -> SystemError? {
        if fd >= 0 && isDeleted { close() }
        if fd < 0 { reopen() }
        if size + UInt64(line.count) > maxSize && size > 0 { rotate() }
        guard fd >= 0 else { return SystemError("open \(path)") }
        let written = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == line.count else {
            let error = SystemError("write \(path)", errno: written < 0 ? errno : ENOSPC)
            if written > 0 { ftruncate(fd, off_t(size)) }
            return error
        }
        size += UInt64(written)
        return nil
    }

    /// Whether the open file has no name any more (someone deleted it to free the space).
    private var isDeleted: Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && info.st_nlink == 0
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Empties the log: the current file truncated, the rotated ones removed.
    func clear() {
        if fd >= 0 {
            ftruncate(fd, 0)
        } else {
            let closed = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW)
            if closed >= 0 { Glibc.close(closed) }
        }
        size = 0
        for index in 1..<max(files, 2) { unlink("\(path).\(index)") }
    }

    /// The last `count` lines of the current file and, when it holds fewer, the previous
    /// one; oldest first. Reads backwards in blocks, so the cost follows `count`, not the
    /// file size.
    func lastLines(_ count: Int) -> [[UInt8]] {
        guard count > 0 else { return [] }
        var lines = Self.lastLines(count, of: path)
        if lines.count < count && files > 1 {
            lines = Self.lastLines(count - lines.count, of: path + ".1") + lines
        }
        return lines
    }

    private static let readBlock = 64 * 1024

    private static func lastLines(_ count: Int, of path: String) -> [[UInt8]] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return [] }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return [] }
        var offset = Int(info.st_size)
        var blocks: [[UInt8]] = []
        var newlines = 0
        // One more newline than lines wanted: the one ending the line before the first.
        while offset > 0 && newlines <= count {
            let length = min(readBlock, offset)
            offset -= length
            var block = [UInt8](repeating: 0, count: length)
            let read = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(offset)) }
            guard read == length else { break }
            newlines += block.withUnsafeBytes(Self.newlineCount)
            blocks.append(block)
        }
        // memcpy and memchr rather than generic sequence code: a 10,000-line tail of long
        // lines is tens of megabytes, and the loop waits while it is read.
        var tail: [UInt8] = []
        tail.reserveCapacity(blocks.reduce(0) { $0 + $1.count })
        for block in blocks.reversed() { tail.append(contentsOf: block) }
        return tail.withUnsafeBytes { lastLines(count, in: $0) }
    }

    private static func newlineCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard var cursor = bytes.baseAddress else { return 0 }
        let end = cursor + bytes.count
        var count = 0
        while cursor < end, let newline = memchr(cursor, Int32(UInt8(ascii: "\n")), end - cursor) {
            count += 1
            cursor = UnsafeRawPointer(newline) + 1
        }
        return count
    }

    /// The last `count` non-empty lines of `bytes`, oldest first, without their newlines.
    private static func lastLines(_ count: Int, in bytes: UnsafeRawBufferPointer) -> [[UInt8]] {
        guard let start = bytes.baseAddress else { return [] }
        // Where each line starts and ends, found with memchr.
        var bounds: [Range<Int>] = []
        var lineStart = 0
        while lineStart < bytes.count {
            let newline = memchr(start + lineStart, Int32(UInt8(ascii: "\n")), bytes.count - lineStart).map { UnsafeRawPointer($0) - start } ?? bytes.count
            if newline > lineStart { bounds.append(lineStart..<newline) }
            lineStart = newline + 1
        }
        return bounds.suffix(count).map { Array(UnsafeRawBufferPointer(rebasing: bytes[$0])) }
    }

    private func rotate() {
        close()
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

    /// Never through a symbolic link planted at `path`: a log is written and read as root.
    private func reopen() {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o640)
        var info = stat()
        size = fd >= 0 && fstat(fd, &info) == 0 ? UInt64(info.st_size) : 0
    }
}
