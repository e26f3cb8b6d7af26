import Glibc

/// Both ends of a socket pair, close-on-exec, closed at the end of the test.
public final class DescriptorPair {
    public let parentEnd: Int32
    public private(set) var childEnd: Int32

    private init(_ fds: [Int32]) {
        parentEnd = fds[0]
        childEnd = fds[1]
    }

    /// A connected UNIX stream socket pair, created close-on-exec atomically
    /// (tests spawn in parallel: a pipe made first and flagged after could leak
    /// into another test's child and hold its end open).
    public static func socketPair() -> DescriptorPair {
        var fds: [Int32] = [-1, -1]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0, "socketpair failed")
        return DescriptorPair(fds)
    }

    /// Closes the test's copy of the child's end, so that reads see end of file
    /// once the child is done.
    public func closeChildEnd() {
        if childEnd >= 0 { close(childEnd) }
        childEnd = -1
    }

    /// Reads until end of file.
    public func readAll() -> String {
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

    /// Reads until `count` newline-terminated lines have arrived (or end of file, once
    /// every child holding the other end is gone).
    public func readLines(_ count: Int) -> [String] {
        closeChildEnd()
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

/// The text of a file, or nil when it cannot be opened.
public func readTextFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &chunk, chunk.count)
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { return String(decoding: bytes, as: UTF8.self) }
        bytes += chunk[..<count]
    }
}
