import EventLoop
import HTTPServer
import Sockets
import WireProtocol

/// `GET /asset?extension=ID&name=NAME`: an image a widget wrote into its `assets/`
/// directory, fetched with the host request `asset` (docs/PROTOCOL.md §6) on a
/// connection of its own; the daemon reads the file, never this program.
final class AssetProxy {
    private let loop: EventLoop
    private let hostSocket: String
    private var host: Connection?
    private var framer = LineFramer()
    private var pending: [UInt64: (exchange: HTTPExchange, timeout: EventSource?)] = [:]
    private var nextID: UInt64 = 1

    /// Fetches waiting at once; one more is answered 503.
    static let maxPending = 64
    /// A fetch the daemon has not answered by then is answered 504.
    static let timeout = Duration.seconds(5)

    init(loop: EventLoop, hostSocket: String) {
        self.loop = loop
        self.hostSocket = hostSocket
    }

    func close() {
        host?.close()
    }

    func fetch(extensionID: String, name: String, for exchange: HTTPExchange) {
        guard pending.count < Self.maxPending else { return exchange.respond(status: .serviceUnavailable, text: "too many asset fetches") }
        guard let host = connection() else { return exchange.respond(status: .badGateway, text: "cannot reach the daemon") }
        let id = nextID
        nextID += 1
        let request: JSONValue = ["type": "asset", "id": .number(Double(id)), "extension": .string(extensionID), "name": .string(name)]
        let timeout = loop.addTimer(after: Self.timeout) { [unowned self] in
            self.pending.removeValue(forKey: id)?.exchange.respond(status: .gatewayTimeout, text: "the daemon did not answer")
        }
        pending[id] = (exchange, timeout)
        exchange.onClose = { [unowned self] in self.pending.removeValue(forKey: id) }
        host.send(request.encoded().bytes + [UInt8(ascii: "\n")])
    }

    private func connection() -> Connection? {
        if let host, host.isOpen { return host }
        guard let fd = try? UnixSocket.connect(path: hostSocket) else { return nil }
        framer = LineFramer()
        host = try? Connection(
            loop: loop, fd: fd,
            onData: { [unowned self] _, bytes in self.receive(bytes) },
            onClose: { [unowned self] _ in self.failAll() }
        )
        return host
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) {
        do {
            try framer.append(bytes)
            while let line = try framer.nextLine() { answer(line) }
        } catch {
            host?.close()
        }
    }

    private func answer(_ line: ArraySlice<UInt8>) {
        guard case .object(let fields)? = try? EncodedJSON(trustedBytes: Array(line)).decoded(),
            case .number(let number)? = fields["id"], let waiting = pending.removeValue(forKey: UInt64(number))
        else { return }
        waiting.exchange.onClose = nil
        if case .string(let type)? = fields["contentType"], case .string(let data)? = fields["data"], let body = Base64.decode(data) {
            waiting.exchange.respond(status: .ok, type: type, body: body, headers: Self.headers)
        } else {
            waiting.exchange.respond(status: .notFound, text: fields["error"]?.stringValue ?? "no such asset")
        }
    }

    private func failAll() {
        for waiting in pending.values { waiting.exchange.respond(status: .badGateway, text: "the daemon closed the connection") }
        pending.removeAll()
    }

    /// An asset is shown by `<img>`; opened on its own (an SVG), it runs nothing.
    private static let headers = [
        ("Content-Security-Policy", "sandbox; default-src 'none'; style-src 'unsafe-inline'"),
        ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "max-age=10"),
    ]
}
