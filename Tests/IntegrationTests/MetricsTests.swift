import ExtensiondTestSupport
import Foundation
import Testing

/// `supervisor.metrics_listen`: a Prometheus scrape of a real daemon over loopback.
@Suite struct MetricsTests {
    @Test func aScrapeShowsTheProcessesAndTheDaemon() throws {
        let port = try freeLoopbackPort()
        let daemon = try TestDaemon(config: """
        [hosts.panel]
        command = ["/bin/sleep", "1000"]
        """, supervisor: "metrics_listen = \"127.0.0.1:\(port)\"")
        try daemon.start()
        #expect(eventually { (try? daemon.control(.init(command: .status)).status?.first?.state) == "running" })

        let scrape = try httpRequest(port: port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(scrape.hasPrefix("HTTP/1.0 200 OK\r\n"))
        #expect(scrape.contains("Content-Type: text/plain; version=0.0.4"))
        #expect(scrape.contains("# TYPE extensiond_process_launches_total counter\n"))
        #expect(scrape.contains("extensiond_process_launches_total{kind=\"host\",name=\"panel\"} 1\n"))
        #expect(scrape.contains("extensiond_process_rss_bytes{kind=\"host\",name=\"panel\"} "))
        #expect(scrape.contains("extensiond_daemon_rss_bytes "))
        #expect(scrape.contains("extensiond_pressure_level 0\n"))

        #expect(try httpRequest(port: port, "POST /metrics HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.0 405"))
        #expect(try httpRequest(port: port, String(repeating: "x", count: 10_000)).hasPrefix("HTTP/1.0 431"))
        #expect(daemon.process?.isRunning == true)
    }

    @Test func anAddressInUseStopsTheStartWithItsName() throws {
        let (port, holder) = try boundLoopbackPort()
        defer { close(holder) }
        let daemon = try TestDaemon(supervisor: "metrics_listen = \"127.0.0.1:\(port)\"")
        #expect(throws: TestSupportError.self) { try daemon.start(readyTimeout: 2) }
        #expect(daemon.process?.wait(timeout: 5) == 1)
        #expect(daemon.process?.stderr.contains("127.0.0.1:\(port)") == true)
    }
}

/// A loopback port nobody listens on right now.
private func freeLoopbackPort() throws -> UInt16 {
    let (port, fd) = try boundLoopbackPort()
    close(fd)
    return port
}

/// A socket bound (and listening) on a free loopback port, and that port.
private func boundLoopbackPort() throws -> (UInt16, Int32) {
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
private func httpRequest(port: UInt16, _ request: String) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw TestSupportError("connect to port \(port): \(String(cString: strerror(errno)))") }
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
