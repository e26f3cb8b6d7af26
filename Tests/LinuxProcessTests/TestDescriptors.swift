#if canImport(Glibc)
import Glibc
#endif

/// Both ends of a socket pair, close-on-exec, closed at the end of the test.
final class DescriptorPair {
    let parentEnd: Int32
    private(set) var childEnd: Int32

    private init(_ fds: [Int32]) {
        parentEnd = fds[0]
        childEnd = fds[1]
    }

    /// A connected UNIX stream socket pair, created close-on-exec atomically
    /// (tests spawn in parallel: a pipe made first and flagged after could leak
    /// into another test's child and hold its end open).
    static func socketPair() -> DescriptorPair {
        var fds: [Int32] = [-1, -1]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0, "socketpair failed")
        return DescriptorPair(fds)
    }

    /// Closes the test's copy of the child's end, so that reads see end of file
    /// once the child is done.
    func closeChildEnd() {
        if childEnd >= 0 { close(childEnd) }
        childEnd = -1
    }

    /// Reads until end of file.
    func readAll() -> String {
        closeChildEnd()
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(parentEnd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[..<count]
        }
    }

    /// Reads until `count` newline-terminated lines have arrived (or end of file).
    func readLines(_ count: Int) -> [String] {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.filter({ $0 == UInt8(ascii: "\n") }).count < count {
            let result = read(parentEnd, &byte, 1)
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    deinit {
        close(parentEnd)
        closeChildEnd()
    }
}

/// The text of a /proc file, or "" when it cannot be read.
func procFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &chunk, chunk.count)
        if count <= 0 { return String(decoding: bytes, as: UTF8.self) }
        bytes += chunk[..<count]
    }
}

/// The value of a `Key:\tvalue` line of /proc/PID/status.
func statusField(_ key: String, of pid: pid_t) -> String? {
    procFile("/proc/\(pid)/status").split(separator: "\n")
        .first { $0.hasPrefix("\(key):") }
        .map { $0.dropFirst(key.count + 1).trimmingCharacters() }
}

/// Entries of a directory, without `.` and `..`.
func directoryEntries(_ path: String) -> [String] {
    guard let handle = opendir(path) else { return [] }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// The target of a symbolic link.
func linkTarget(_ path: String) -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink(path, &buffer, buffer.count - 1)
    guard length >= 0 else { return "" }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension Substring {
    func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\n" }.reversed())
    }
}
