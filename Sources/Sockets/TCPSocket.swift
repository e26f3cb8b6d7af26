import Glibc

/// TCP listening sockets, for the optional metrics endpoint.
public enum TCPSocket {
    /// Binds and listens on `address` (`127.0.0.1:9464`, `[::1]:9464`), non-blocking and
    /// close-on-exec. The host must be a numeric address: no name lookups in the daemon.
    public static func listen(address: String) throws(SystemError) -> Int32 {
        guard let (host, port) = split(address) else {
            throw SystemError("'\(address)' is not HOST:PORT", errno: EINVAL)
        }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, port, &hints, &found)
        guard status == 0, let info = found else {
            throw SystemError("'\(address)': \(String(cString: gai_strerror(status)))", errno: EINVAL)
        }
        defer { freeaddrinfo(found) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket for \(address)") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, Glibc.listen(fd, 16) == 0 else {
            let error = SystemError("listen on \(address)")
            close(fd)
            throw error
        }
        return fd
    }

    /// `HOST:PORT` → (HOST, PORT); brackets around an IPv6 host are removed.
    static func split(_ address: String) -> (String, String)? {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        var host = address[..<colon]
        let port = address[address.index(after: colon)...]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, !port.isEmpty else { return nil }
        return (String(host), String(port))
    }
}
