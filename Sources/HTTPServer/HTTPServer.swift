/// A small HTTP/1.1 server on the event loop, for the metrics endpoint and the Today view.
///
/// This module owns the HTTP side of a TCP connection: reading one request head (and a
/// bounded body), answering it and closing, or keeping it open as a stream (Server-Sent
/// Events). It must not know what is served: routes belong to its users. Every bound is a
/// field of ``HTTPLimits``, so a peer can make it hold at most `maxClients` connections of
/// `maxHeadBytes + maxBodyBytes` each, for `requestTimeout` at most before its answer and
/// `answerTimeout` after it. Idle and slow clients cannot deny service: a new connection
/// that finds the server (or its peer's share) full drops the oldest one that has not sent
/// its request.
import EventLoop
import Glibc
import Sockets

public final class HTTPServer {
    private let loop: EventLoop
    private let limits: HTTPLimits
    private var listener: Listener?
    private var exchanges: [Int32: HTTPExchange] = [:]
    private var accepted: UInt64 = 0
    private let handle: (HTTPRequest, HTTPExchange) -> Void

    /// Listens on `address` (`HOST:PORT`, numeric) and calls `handle` once per request.
    public init(
        loop: EventLoop, address: String, limits: HTTPLimits = HTTPLimits(),
        handle: @escaping (HTTPRequest, HTTPExchange) -> Void
    ) throws(SystemError) {
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
        let peer = Self.peerAddress(of: fd)
        if exchanges.values.count(where: { $0.peer == peer }) >= limits.maxClientsPerPeer { dropOldestIdle { $0.peer == peer } }
        if exchanges.count >= limits.maxClients { dropOldestIdle { _ in true } }
        // Every connection holds an answer being written: the peers that do not read wait for their timeout.
        guard exchanges.count < limits.maxClients else {
            let busy = HTTPExchange.head(status: .serviceUnavailable, headers: [("Content-Type", "text/plain"), ("Content-Length", "0")])
            _ = busy.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            Glibc.close(fd)
            return
        }
        // Each write is a whole answer or a whole event: Nagle's algorithm would hold an
        // event back until the peer acknowledged the one before (a delayed ACK: up to 40 ms).
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        do {
            accepted += 1
            let answerTimeout = limits.answerTimeout
            let exchange = HTTPExchange(limits: limits, peer: peer, sequence: accepted) { [unowned self] connection in
                closeTimer(connection, after: answerTimeout)
            }
            let connection = try Connection(
                loop: loop, fd: fd, maxQueuedBytes: limits.maxQueuedBytes,
                onData: { [unowned self] _, bytes in self.receive(bytes, on: fd) },
                onClose: { [unowned self] _ in self.exchanges.removeValue(forKey: fd)?.connectionClosed() }
            )
            exchange.connection = connection
            exchange.timeout = closeTimer(connection, after: limits.requestTimeout)
            exchanges[fd] = exchange
        } catch {
            Glibc.close(fd)
        }
    }

    private func closeTimer(_ connection: Connection, after delay: Duration) -> EventSource? {
        loop.addTimer(after: delay) { [weak connection] in connection?.close() }
    }

    /// Closes the oldest connection, among those `included`, that has not sent its request.
    private func dropOldestIdle(where included: (HTTPExchange) -> Bool) {
        exchanges.values.filter { !$0.answered && included($0) }.min { $0.sequence < $1.sequence }?.close()
    }

    /// The peer's address bytes without the port (empty for other families).
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

    private func receive(_ bytes: UnsafeRawBufferPointer, on fd: Int32) {
        guard let exchange = exchanges[fd] else { return }
        switch exchange.reader.append(bytes) {
        case .incomplete: break
        case .failed(let status, let reason): exchange.respond(status: status, text: reason + "\n")
        case .request(let request): handle(request, exchange)
        }
    }
}
