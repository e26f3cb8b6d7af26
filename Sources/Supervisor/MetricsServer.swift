import EventLoop
import Glibc

/// The optional Prometheus endpoint (`supervisor.metrics_listen`): answers any HTTP GET
/// with the metrics text, then closes. Only as much HTTP as a scraper needs.
final class MetricsServer {
    private let loop: EventLoop
    private var listener: Listener?
    private var clients: [Int32: (connection: Connection, request: [UInt8])] = [:]
    private let render: () -> String

    /// The longest request head read; anything longer is answered 431 and closed.
    private static let maxRequestBytes = 8192

    init(loop: EventLoop, address: String, render: @escaping () -> String) throws(SystemError) {
        self.loop = loop
        self.render = render
        listener = try Listener(loop: loop, tcpAddress: address) { [unowned self] fd in self.accept(fd) }
    }

    func close() {
        listener?.close()
        listener = nil
        for client in clients.values { client.connection.close() }
        clients.removeAll()
    }

    private func accept(_ fd: Int32) {
        do {
            let connection = try Connection(
                loop: loop, fd: fd,
                onData: { [unowned self] connection, bytes in self.receive(bytes, on: connection) },
                onClose: { [unowned self] connection in self.clients.removeValue(forKey: connection.fd) }
            )
            clients[fd] = (connection, [])
        } catch {
            Glibc.close(fd)
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, on connection: Connection) {
        guard var request = clients[connection.fd]?.request else { return }
        request.append(contentsOf: bytes)
        clients[connection.fd]?.request = request
        if request.count > Self.maxRequestBytes {
            return respond(on: connection, status: "431 Request Header Fields Too Large", body: "request too long\n")
        }
        guard let end = request.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
        let line = String(decoding: request[..<end.lowerBound].prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        if line.hasPrefix("GET ") {
            respond(on: connection, status: "200 OK", body: render(), type: "text/plain; version=0.0.4")
        } else {
            respond(on: connection, status: "405 Method Not Allowed", body: "only GET\n")
        }
    }

    private func respond(on connection: Connection, status: String, body: String, type: String = "text/plain") {
        let head = "HTTP/1.0 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        connection.send(Array((head + body).utf8))
        connection.closeWhenFlushed()
        clients[connection.fd]?.request = []
    }
}
