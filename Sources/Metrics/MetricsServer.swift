/// `/metrics`: the HTTP endpoint and the families read from the components passed in.
///
/// This module owns what is exposed and how it is served. It must not change anything it
/// reads.
import EventLoop
import Glibc
import PrometheusText
import Sockets

/// The optional Prometheus endpoint (`supervisor.metrics_listen`): `GET` or `HEAD`
/// `/metrics` answers with the exposition text, any other path 404, any other method
/// 405; one request per connection. Only as much HTTP as a scraper needs, and a peer
/// can make it hold at most ``maxClients`` connections of ``maxRequestBytes`` each,
/// for ``requestTimeout`` then ``answerTimeout`` at most. Idle and slow clients cannot
/// deny a scrape: a new connection that finds the server (or its peer's share) full
/// drops the oldest connection that has not sent its request yet.
package final class MetricsServer {
    private let loop: EventLoop
    private var listener: Listener?
    private var clients: [Int32: Client] = [:]
    private var accepted: UInt64 = 0
    private let render: () -> String

    /// Connections served at once.
    static let maxClients = 16
    /// Connections one peer address holds at once; its next one drops its oldest idle one.
    static let maxClientsPerPeer = 8
    /// The longest request head read; anything longer is answered 431 and closed.
    static let maxRequestBytes = 8192
    /// The most header lines a request may have.
    static let maxHeaderLines = 64
    /// A client that has not sent a whole request head by then is dropped: a scraper
    /// sends it at once.
    static let requestTimeout = Duration.seconds(2)
    /// An answer not taken by then is dropped (a peer that does not read).
    static let answerTimeout = Duration.seconds(10)

    private struct Client {
        let connection: Connection
        /// The peer's address (bytes of the IPv4 or IPv6 address, without the port).
        let peer: [UInt8]
        /// Order of acceptance: the lowest is the oldest.
        let sequence: UInt64
        var request: [UInt8] = []
        var timeout: EventSource?
        var answered = false
    }

    package init(loop: EventLoop, address: String, render: @escaping () -> String) throws(SystemError) {
        self.loop = loop
        self.render = render
        listener = try Listener(loop: loop, tcpAddress: address) { [unowned self] fd in self.accept(fd) }
    }

    package func close() {
        listener?.close()
        listener = nil
        for client in clients.values { client.connection.close() }
        clients.removeAll()
    }

    private func accept(_ fd: Int32) {
        let peer = Self.peerAddress(of: fd)
        if clients.values.count(where: { $0.peer == peer }) >= Self.maxClientsPerPeer { dropOldestIdle { $0.peer == peer } }
        if clients.count >= Self.maxClients { dropOldestIdle { _ in true } }
        // Every slot holds an answer being written: the peers that do not read wait for their timeout.
        guard clients.count < Self.maxClients else {
            let busy = Array(Self.head(status: "503 Service Unavailable", type: "text/plain", length: 0).utf8)
            _ = busy.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            Glibc.close(fd)
            return
        }
        do {
            let connection = try Connection(
                loop: loop, fd: fd, maxQueuedBytes: 64 << 20,
                onData: { [unowned self] connection, bytes in self.receive(bytes, on: connection) },
                onClose: { [unowned self] connection in self.clients.removeValue(forKey: connection.fd) }
            )
            accepted += 1
            clients[fd] = Client(connection: connection, peer: peer, sequence: accepted, timeout: closeTimer(connection, after: Self.requestTimeout))
        } catch {
            Glibc.close(fd)
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, on connection: Connection) {
        guard var client = clients[connection.fd], !client.answered else { return }
        client.request.append(contentsOf: bytes.prefix(Self.maxRequestBytes + 1 - client.request.count))
        clients[connection.fd] = client
        guard let end = client.request.firstRange(of: Array("\r\n\r\n".utf8)) else {
            if client.request.count > Self.maxRequestBytes {
                respond(on: connection, status: "431 Request Header Fields Too Large", body: "request head longer than \(Self.maxRequestBytes) bytes\n")
            }
            return
        }
        let lines = client.request[..<end.lowerBound].split(separator: Array("\r\n".utf8), omittingEmptySubsequences: false)
        guard lines.count <= Self.maxHeaderLines + 1 else {
            return respond(on: connection, status: "431 Request Header Fields Too Large", body: "more than \(Self.maxHeaderLines) header lines\n")
        }
        let requestLine = lines.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            return respond(on: connection, status: "400 Bad Request", body: "expected \"METHOD /metrics HTTP/1.1\"\n")
        }
        let path = parts[1].prefix { $0 != "?" }
        let method = parts[0]
        if path != "/metrics" {
            respond(on: connection, status: "404 Not Found", body: "only /metrics is served\n")
        } else if method == "GET" || method == "HEAD" {
            respond(on: connection, status: "200 OK", body: render(), type: ExpositionText.contentType, omitBody: method == "HEAD")
        } else {
            respond(on: connection, status: "405 Method Not Allowed", body: "only GET and HEAD\n", extraHeaders: "Allow: GET, HEAD\r\n")
        }
    }

    private func respond(on connection: Connection, status: String, body: String, type: String = "text/plain; charset=utf-8",
                         omitBody: Bool = false, extraHeaders: String = "") {
        let head = Self.head(status: status, type: type, length: body.utf8.count, extraHeaders: extraHeaders)
        connection.send(Array((omitBody ? head : head + body).utf8))
        connection.closeWhenFlushed()
        // The request is answered: no more input is read into it, and the answer must be taken in time.
        clients[connection.fd]?.answered = true
        clients[connection.fd]?.timeout = closeTimer(connection, after: Self.answerTimeout)
        clients[connection.fd]?.request = []
    }

    private func closeTimer(_ connection: Connection, after delay: Duration) -> EventSource? {
        try? loop.addTimer(after: delay) { [weak connection] in connection?.close() }
    }

    /// Closes the oldest connection, among those `included`, that has not sent its request.
    private func dropOldestIdle(where included: (Client) -> Bool) {
        clients.values.filter { !$0.answered && included($0) }.min { $0.sequence < $1.sequence }?.connection.close()
    }

    /// The address bytes of the peer of `fd`; empty when it cannot be read.
    private static func peerAddress(of fd: Int32) -> [UInt8] {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let read = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
        guard read else { return [] }
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: &storage) { bytes in
            switch family {
            case AF_INET: Array(bytes[4..<8])  // sin_addr, after family and port
            case AF_INET6: Array(bytes[8..<24])  // sin6_addr, after family, port and flow info
            default: []
            }
        }
    }

    private static func head(status: String, type: String, length: Int, extraHeaders: String = "") -> String {
        "HTTP/1.0 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\n\(extraHeaders)Connection: close\r\n\r\n"
    }
}
