import EventLoop
import Glibc
import HTTPServer
import Sockets
import WireProtocol

/// One open page: its own connection to `host.sock` (so what the page says — its
/// subscriptions, what it shows — ends with it) relayed both ways, daemon lines to the
/// page as Server-Sent Events (`data: <line>`), page messages to the daemon as lines.
final class PageSession {
    let token: String
    private let stream: HTTPExchange
    private var host: Connection?
    private var framer = LineFramer()
    private let onEnd: (String) -> Void

    init(loop: EventLoop, hostSocket: String, stream: HTTPExchange, onEnd: @escaping (String) -> Void) throws(SystemError) {
        token = Self.randomToken()
        self.stream = stream
        self.onEnd = onEnd
        let fd = try UnixSocket.connect(path: hostSocket)
        host = try Connection(
            loop: loop, fd: fd,
            onData: { [unowned self] _, bytes in self.relay(bytes) },
            onClose: { [unowned self] _ in self.close() }
        )
        stream.onClose = { [unowned self] in self.close() }
        stream.beginStream(type: "text/event-stream")
        stream.send(Array("event: session\ndata: {\"session\":\"\(token)\"}\n\n".utf8))
    }

    /// Messages from the page (checked by ``PageMessage``), one line each, in one write.
    func send(_ lines: [[UInt8]]) {
        host?.send(lines.flatMap { $0 + [UInt8(ascii: "\n")] })
    }

    func close() {
        guard let host else { return }
        self.host = nil
        host.close()
        stream.close()
        onEnd(token)
    }

    private func relay(_ bytes: UnsafeRawBufferPointer) {
        do {
            try framer.append(bytes)
            while let line = try framer.nextLine() {
                stream.send(Self.eventPrefix + line + Self.eventEnd)
            }
        } catch {
            close()
        }
    }

    private static let eventPrefix = Array("data: ".utf8)
    private static let eventEnd = Array("\n\n".utf8)

    /// 128 random bits in hex: what the page proves it read its own event stream with.
    private static func randomToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = bytes.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) }
        return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
