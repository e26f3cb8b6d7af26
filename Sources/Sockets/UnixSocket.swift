import Glibc

/// UNIX stream sockets: the address form, listening and connecting.
public enum UnixSocket {
    /// The longest path a `sockaddr_un` holds.
    public static let maxPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Calls `body` with a `sockaddr_un` for `path`.
    package static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R) throws(SystemError) -> R {
        try withAddress(Array(path.utf8), abstract: false, naming: "socket path \(path)", body)
    }

    /// Calls `body` with a `sockaddr_un` for the abstract address `name` (Linux's namespace
    /// of socket names that are not files; written `@name`), as long as the name exactly.
    package static func withAbstractAddress<R>(_ name: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R) throws(SystemError) -> R {
        try withAddress(Array(name.utf8), abstract: true, naming: "abstract socket name @\(name)", body)
    }

    /// A path is NUL-terminated and passed with the whole structure's size; an abstract
    /// name follows a NUL and its length is exactly what it holds.
    private static func withAddress<R>(
        _ bytes: [UInt8], abstract: Bool, naming description: @autoclosure () -> String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R
    ) throws(SystemError) -> R {
        guard bytes.count <= maxPathLength else {
            throw SystemError("\(description()) is longer than \(maxPathLength) bytes", errno: ENAMETOOLONG)
        }
        var address = sockaddr_un()  // all zeros: the path's terminator, the name's leading NUL
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.baseAddress!.advanced(by: abstract ? 1 : 0).copyMemory(from: bytes, byteCount: bytes.count)
        }
        let length =
            abstract
            ? MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + 1 + bytes.count
            : MemoryLayout<sockaddr_un>.size
        return try withUnsafePointer(to: &address) { (pointer) throws(SystemError) -> R in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SystemError) -> R in try body(address, socklen_t(length)) }
        }
    }

    /// Binds and listens on `path` with the given file mode, non-blocking and close-on-exec.
    /// A stale socket file (nobody accepting) is replaced; a live one is an error.
    public static func listen(path: String, mode: mode_t) throws(SystemError) -> Int32 {
        if let probe = try? connect(path: path) {
            FileDescriptor.close(probe)
            throw SystemError("\(path) is already served by another process", errno: EADDRINUSE)
        }
        unlink(path)
        let socket = try FileDescriptor("socket") {
            Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        _ = try withAddress(path) { address, length throws(SystemError) in
            try systemCall("bind \(path)") { Glibc.bind(socket.rawValue, address, length) }
        }
        _ = try systemCall("chmod \(path)") { chmod(path, mode) }
        _ = try systemCall("listen \(path)") { Glibc.listen(socket.rawValue, 128) }
        return socket.take()
    }

    /// Connects to `path` (blocking, close-on-exec).
    public static func connect(path: String) throws(SystemError) -> Int32 {
        let socket = try FileDescriptor("socket") { Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        _ = try withAddress(path) { address, length throws(SystemError) in
            try systemCall("connect \(path)") { Glibc.connect(socket.rawValue, address, length) }
        }
        return socket.take()
    }

    /// Writes all of `bytes` to a blocking fd.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            offset += try systemCall("write") { bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
        }
    }
}
