import EventLoop

/// One connection's request and its answer: a whole response (then the connection closes
/// once it is written), or a stream of chunks the owner writes until either side closes.
public final class HTTPExchange {
    var connection: Connection?
    var timeout: EventSource?
    var reader: RequestReader
    /// The peer's address bytes (without the port) and the order of acceptance, by which
    /// the server drops the oldest idle connection first.
    let peer: [UInt8]
    let sequence: UInt64
    /// Arms the timer that drops a whole answer the peer does not take.
    private let armAnswerTimeout: (Connection) -> EventSource?
    private(set) var answered = false
    /// Runs once when the connection closes (the peer left, or ``close()``).
    public var onClose: (() -> Void)?

    init(limits: HTTPLimits, peer: [UInt8], sequence: UInt64, armAnswerTimeout: @escaping (Connection) -> EventSource?) {
        reader = RequestReader(limits: limits)
        self.peer = peer
        self.sequence = sequence
        self.armAnswerTimeout = armAnswerTimeout
    }

    /// Whether the connection is still open (a stream's reader is still there).
    public var isOpen: Bool { connection?.isOpen ?? false }

    /// Bytes written to the stream and not yet read by the peer.
    public var queuedByteCount: Int { connection?.queuedByteCount ?? 0 }

    /// Answers with `body` and closes once it is written. `omitBody` answers a `HEAD`.
    public func respond(status: HTTPStatus, type: String, body: [UInt8], headers: [(String, String)] = [], omitBody: Bool = false) {
        guard begin() else { return }
        let head = Self.head(
            status: status,
            headers: [("Content-Type", type), ("Content-Length", String(body.count))] + headers
                + [("Connection", "close")])
        guard let connection else { return }
        connection.send(omitBody ? head : head + body)
        connection.closeWhenFlushed()
        timeout = armAnswerTimeout(connection)
    }

    /// A plain-text answer (errors).
    public func respond(status: HTTPStatus, text: String, headers: [(String, String)] = []) {
        respond(status: status, type: "text/plain; charset=utf-8", body: Array(text.utf8), headers: headers)
    }

    /// Starts an answer of unknown length (Server-Sent Events): the head now, then
    /// ``send(_:)`` until ``close()``.
    public func beginStream(type: String, headers: [(String, String)] = []) {
        guard begin() else { return }
        connection?.send(
            Self.head(
                status: .ok,
                headers: [("Content-Type", type), ("Cache-Control", "no-store")] + headers
                    + [("Connection", "close")]))
    }

    /// Writes more of a stream; a peer that stops reading is dropped past the queue limit.
    public func send(_ bytes: some Collection<UInt8>) {
        connection?.send(bytes)
    }

    /// Closes now.
    public func close() {
        connection?.close()
    }

    func connectionClosed() {
        timeout = nil
        connection = nil
        let onClose = onClose
        self.onClose = nil
        onClose?()
    }

    /// The request is answered: no timeout applies from now on.
    private func begin() -> Bool {
        guard !answered, isOpen else { return false }
        answered = true
        timeout = nil
        return true
    }

    static func head(status: HTTPStatus, headers: [(String, String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status.line)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }
}
