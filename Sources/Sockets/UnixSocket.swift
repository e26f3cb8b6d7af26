import Glibc

/// UNIX stream sockets: the address form, listening and connecting.
public enum UnixSocket {
    /// The longest path a `sockaddr_un` holds.
    public static let maxPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Calls `body` with a `sockaddr_un` for `path`.
    package static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws(SystemError) -> R {
        try withAddress(Array(path.utf8), abstract: false, naming: "socket path \(path)", body)
    }

    /// Calls `body` with a `sockaddr_un` for the abstract address `name` (Linux's namespace
    /// of socket names that are not files; written `@name`), as long as the name exactly.
    package static func withAbstractAddress<R>(_ name: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws(SystemError) -> R {
        try withAddress(Array(name.utf8), abstract: true, naming: "abstract socket name @\(name)", body)
    }

    /// A path is NUL-terminated and passed with the whole structure's size; an abstract
    /// name follows a NUL and its length is exactly what it holds.
    private static func withAddress<R>(
        _ bytes: [UInt8], abstract: Bool, naming description: @autoclosure () -> String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> R
    ) throws(SystemError) -> R {
        guard bytes.count <= maxPathLength else {
            throw SystemError("\(description()) is longer than \(maxPathLength) bytes", errno: ENAMETOOLONG)
        }
        var address = sockaddr_un()  // all zeros: the path's terminator, the name's leading NUL
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.baseAddress!.advanced(by: abstract ? 1 : 0).copyMemory(from: bytes, byteCount: bytes.count)
        }
        let length = abstract
            ? MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + 1 + bytes.count
            : MemoryLayout<sockaddr_un>.size
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }

    /// Binds and listens on `path` with the given file mode, non-blocking and close-on-exec.
    /// A stale socket file (nobody accepting) is replaced; a live one is an error.
    public static func listen(path: String, mode: mode_t) throws(SystemError) -> Int32 {
        if let probe = try? connect(path: path) {
            close(probe)
            throw SystemError("\(path) is already served by another process", errno: EADDRINUSE)
        }
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        do throws(SystemError) {
            let bound = try withAddress(path) { Glibc.bind(fd, $0, $1) }
            guard bound == 0 else { throw SystemError("bind \(path)") }
            guard chmod(path, mode) == 0 else { throw SystemError("chmod \(path)") }
            guard Glibc.listen(fd, 128) == 0 else { throw SystemError("listen \(path)") }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Connects to `path` (blocking, close-on-exec).
    public static func connect(path: String) throws(SystemError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        let result = try withAddress(path) { Glibc.connect(fd, $0, $1) }
        guard result == 0 else {
            let error = SystemError("connect \(path)")
            close(fd)
            throw error
        }
        return fd
    }

    /// Writes all of `bytes` to a blocking fd.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError("write")
            }
            offset += written
        }
    }
}
