import ExtensiondTestSupport
import Foundation

// Plain HTTP over loopback for the metrics tests: free ports and one request at a time.

/// A loopback port nobody listens on right now.
func freeLoopbackPort() throws -> UInt16 {
    let (port, fd) = try boundLoopbackPort()
    close(fd)
    return port
}

/// A socket bound (and listening) on a free loopback port, and that port.
func boundLoopbackPort() throws -> (UInt16, Int32) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound, listen(fd, 1) == 0 else {
        close(fd)
        throw TestSupportError("no free loopback port")
    }
    return (UInt16(bigEndian: address.sin_port), fd)
}

/// Sends `request` to 127.0.0.1:`port` and reads the answer until the server closes.
func httpRequest(port: UInt16, _ request: String) throws -> String {
    let fd = try connectLoopback(port: port)
    defer { close(fd) }
    return httpExchange(fd, request)
}

/// Sends `request` on the connected `fd` and reads the answer until the server closes
/// (at most 5 s of silence).
func httpExchange(_ fd: Int32, _ request: String) -> String {
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = request.utf8CString.withUnsafeBytes { send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    var reply: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = recv(fd, &chunk, chunk.count, 0)
        if count <= 0 { break }
        reply += chunk[..<count]
    }
    return String(decoding: reply, as: UTF8.self)
}

/// A connected TCP socket to 127.0.0.1:`port`, from the loopback address `source`.
func connectLoopback(port: UInt16, from source: String = "127.0.0.1") throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var local = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    local.sin_addr.s_addr = inet_addr(source)
    let bound = withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else {
        close(fd)
        throw TestSupportError("bind to \(source): \(String(cString: strerror(errno)))")
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw TestSupportError("connect to port \(port): \(String(cString: strerror(errno)))")
    }
    return fd
}
