import EventLoop
import HTTPServer
import Sockets
import WireProtocol

/// The routes of the Today view: the static page, one event stream per open page, the
/// page's messages to the daemon, and the widgets' assets.
final class TodayServer {
    private let loop: EventLoop
    private let hostSocket: String
    private var http: HTTPServer?
    private var sessions: [String: PageSession] = [:]
    private let assets: AssetProxy
    private let system: SystemMonitor
    /// `/config.json`: what the page shows besides what the daemon lists.
    private let pageConfig: [UInt8]

    /// Pages open at once (each holds a host connection); one more gets 503.
    static let maxSessions = 32
    /// The longest request a page may send (the daemon's own bound on a pull's params is 4 KiB).
    static let maxMessageBytes = 64 * 1024

    init(loop: EventLoop, address: String, hostSocket: String, controlSocket: String, instances: [String: [String]]) throws(SystemError) {
        self.loop = loop
        let instanceLists = instances.mapValues { JSONValue.array($0.map { .string($0) }) }
        pageConfig = JSONValue.object(["instances": .object(instanceLists)]).encoded().bytes
        self.hostSocket = hostSocket
        assets = AssetProxy(loop: loop, hostSocket: hostSocket)
        system = SystemMonitor(loop: loop, controlSocket: controlSocket)
        // The page's browser is usually the one local peer, opening several connections at
        // once: no per-peer share, or its own parallel requests would drop each other.
        let maxClients = 2 * Self.maxSessions + 32
        let limits = HTTPLimits(
            maxClients: maxClients, maxClientsPerPeer: maxClients, maxBodyBytes: Self.maxMessageBytes,
            requestTimeout: .seconds(10), maxQueuedBytes: 8 << 20)
        http = try HTTPServer(loop: loop, address: address, limits: limits) { [unowned self] request, exchange in
            self.route(request, exchange)
        }
    }

    func close() {
        http?.close()
        http = nil
        for session in sessions.values { session.close() }
        sessions.removeAll()
        assets.close()
        system.close()
    }

    private func route(_ request: HTTPRequest, _ exchange: HTTPExchange) {
        switch (request.method, request.path) {
        case ("GET", "/events"): openSession(exchange)
        case ("POST", "/send"): forward(request, exchange)
        case ("GET", "/system.json"): exchange.respond(status: .ok, type: "application/json", body: system.report(), headers: [("Cache-Control", "no-store")])
        case ("GET", "/favicon.ico"): exchange.respond(status: .noContent, type: "image/x-icon", body: [])
        case ("GET", "/config.json"): exchange.respond(status: .ok, type: "application/json", body: pageConfig, headers: [("Cache-Control", "no-cache")])
        case ("GET", "/asset"): assets.fetch(extensionID: request.query["extension"] ?? "", name: request.query["name"] ?? "", for: exchange)
        case ("GET", _), ("HEAD", _):
            guard let file = WebFiles.file(at: request.path) else { return exchange.respond(status: .notFound, text: "no page at \(request.path)") }
            let host = request.headers["host"] ?? "127.0.0.1"
            exchange.respond(
                status: .ok, type: file.type, body: file.bytes, headers: WebFiles.securityHeaders(for: file, host: host),
                omitBody: request.method == "HEAD")
        default:
            exchange.respond(status: .methodNotAllowed, text: "\(request.method) \(request.path) is not served", headers: [("Allow", "GET, HEAD, POST")])
        }
    }

    private func openSession(_ exchange: HTTPExchange) {
        guard sessions.count < Self.maxSessions else {
            return exchange.respond(status: .serviceUnavailable, text: "more than \(Self.maxSessions) pages are open")
        }
        do {
            let session = try PageSession(loop: loop, hostSocket: hostSocket, stream: exchange) { [unowned self] token in
                self.sessions.removeValue(forKey: token)
            }
            sessions[session.token] = session
        } catch {
            exchange.respond(status: .badGateway, text: "cannot reach the daemon: \(error)")
        }
    }

    /// A page's message to the daemon: one JSON object of a type a page may send, on the
    /// host connection of the page's own session (the token only its event stream read),
    /// from the page's own origin (a browser names it on every cross-site POST).
    private func forward(_ request: HTTPRequest, _ exchange: HTTPExchange) {
        if let origin = request.headers["origin"], origin != "http://" + (request.headers["host"] ?? "") {
            return exchange.respond(status: .forbidden, text: "a message from \(origin) is not this page's")
        }
        // Not a type a plain HTML form can send: a cross-site script must ask first, and is refused.
        guard request.headers["content-type"]?.hasPrefix("application/json") == true else {
            return exchange.respond(status: HTTPStatus("415 Unsupported Media Type"), text: "a message is sent as application/json")
        }
        guard let token = request.query["session"], let session = sessions[token] else {
            return exchange.respond(status: .forbidden, text: "unknown session: open /events first")
        }
        switch PageMessage.lines(of: request.body) {
        case .failure(let reason): exchange.respond(status: .badRequest, text: reason.description)
        case .success(let lines):
            session.send(lines)
            exchange.respond(status: .noContent, type: "text/plain", body: [])
        }
    }
}
