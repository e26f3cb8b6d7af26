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
/// for ``requestTimeout`` at most.
package final class MetricsServer {
    private let loop: EventLoop
    private var listener: Listener?
    private var clients: [Int32: Client] = [:]
    private let render: () -> String

    /// Connections served at once; more are answered 503 and closed at once.
    static let maxClients = 16
    /// The longest request head read; anything longer is answered 431 and closed.
    static let maxRequestBytes = 8192
    /// The most header lines a request may have.
    static let maxHeaderLines = 64
    /// A client that has not sent a whole request head by then is dropped.
    static let requestTimeout = Duration.seconds(10)

    private struct Client {
        let connection: Connection
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
            let timeout = try? loop.addTimer(after: Self.requestTimeout) { [weak connection] in connection?.close() }
            clients[fd] = Client(connection: connection, timeout: timeout)
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
        // The request is answered: no more input is read into it, and no timeout applies.
        clients[connection.fd]?.answered = true
        clients[connection.fd]?.timeout = nil
        clients[connection.fd]?.request = []
    }

    private static func head(status: String, type: String, length: Int, extraHeaders: String = "") -> String {
        "HTTP/1.0 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\n\(extraHeaders)Connection: close\r\n\r\n"
    }
}
