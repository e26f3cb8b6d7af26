/// A small HTTP/1.1 server on the event loop, for the metrics endpoint and the Today view.
///
/// This module owns the HTTP side of a TCP connection: reading one request head (and a
/// bounded body), answering it and closing, or keeping it open as a stream (Server-Sent
/// Events). It must not know what is served: routes belong to its users. Every bound is a
/// field of ``HTTPLimits``, so a peer can make it hold at most `maxClients` connections of
/// `maxHeadBytes + maxBodyBytes` each, for `requestTimeout` at most before its answer.
import EventLoop
import Glibc
import Sockets

public final class HTTPServer {
    private let loop: EventLoop
    private let limits: HTTPLimits
    private var listener: Listener?
    private var exchanges: [Int32: HTTPExchange] = [:]
    private let handle: (HTTPRequest, HTTPExchange) -> Void

    /// Listens on `address` (`HOST:PORT`, numeric) and calls `handle` once per request.
    public init(loop: EventLoop, address: String, limits: HTTPLimits = HTTPLimits(),
                handle: @escaping (HTTPRequest, HTTPExchange) -> Void) throws(SystemError) {
        self.loop = loop
        self.limits = limits
        self.handle = handle
        listener = try Listener(loop: loop, tcpAddress: address) { [unowned self] fd in self.accept(fd) }
    }

    /// Stops listening and closes every connection, streams included.
    public func close() {
        listener?.close()
        listener = nil
        for exchange in exchanges.values { exchange.close() }
        exchanges.removeAll()
    }

    /// Connections open now (requests being read, answers being written, streams).
    public var connectionCount: Int { exchanges.count }

    private func accept(_ fd: Int32) {
        guard exchanges.count < limits.maxClients else {
            let busy = HTTPExchange.head(status: .serviceUnavailable, headers: [("Content-Type", "text/plain"), ("Content-Length", "0")])
            _ = busy.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            Glibc.close(fd)
            return
        }
        do {
            let exchange = HTTPExchange(limits: limits)
            let connection = try Connection(
                loop: loop, fd: fd, maxQueuedBytes: limits.maxQueuedBytes,
                onData: { [unowned self] _, bytes in self.receive(bytes, on: fd) },
                onClose: { [unowned self] _ in self.exchanges.removeValue(forKey: fd)?.connectionClosed() }
            )
            exchange.connection = connection
            exchange.timeout = loop.addTimer(after: limits.requestTimeout) { [weak connection] in connection?.close() }
            exchanges[fd] = exchange
        } catch {
            Glibc.close(fd)
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, on fd: Int32) {
        guard let exchange = exchanges[fd] else { return }
        switch exchange.reader.append(bytes) {
        case .incomplete: break
        case .failed(let status, let reason): exchange.respond(status: status, text: reason + "\n")
        case .request(let request): handle(request, exchange)
        }
    }
}
