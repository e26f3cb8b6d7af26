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
        let socket = try FileDescriptor("socket for \(address)") {
            Glibc.socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        var on: Int32 = 1
        _ = try systemCall("SO_REUSEADDR on \(address)") {
            setsockopt(socket.rawValue, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        _ = try systemCall("bind \(address)") { bind(socket.rawValue, info.pointee.ai_addr, info.pointee.ai_addrlen) }
        _ = try systemCall("listen on \(address)") { Glibc.listen(socket.rawValue, 16) }
        return socket.take()
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
