/// The demo's containing app: shows the URLs it is asked to open, whether it was launched
/// with one (its last argument) or is already running and connected to the host socket
/// (an `openURL` message), and carries out the ``DemoCommand`` a URL names on its widget.
/// It owns only that; the socket is HostClient's.
import Glibc
import HostClient
import WireProtocol

// Every line is written unbuffered (see `say`), so exiting at once loses nothing.
signal(SIGTERM) { _ in _exit(0) }

/// Writes one line at once, so that `supervisorctl tail` shows it immediately.
func say(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
    let bytes = Array((text + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}

/// Sends the requests of the command `url` names, numbered from `nextID` on, and shows each
/// answer as it came.
func carryOut(_ url: String, on connection: HostConnection, nextID: inout RequestID) throws(HostConnectionError) {
    guard let command = DemoCommand(url: url) else { return }
    for request in command.requests(firstID: nextID) {
        nextID = (request.requestID ?? nextID).next
        if case .setHasContent(let change) = request {
            // Answered only when refused: an error with its id comes in the main loop.
            try connection.send(request)
            say("demo app: \(command.rawValue): \(change.extensionID) has \(change.value ? "content" : "no content")")
        } else {
            let answer = try connection.request(request)
            say("demo app: \(command.rawValue): \(request.type) → \(String(decoding: answer.encodedLine().dropLast(), as: UTF8.self))")
        }
    }
}

say("demo app: running (pid \(getpid()))")
let launchURL = LaunchURL.from(arguments: CommandLine.arguments)
if let launchURL {
    say("demo app: launched to open \(launchURL)")
}

let path = HostSocket.path { getenv($0).map { String(cString: $0) } }
do {
    let connection = try HostConnection(path: path)
    say("demo app: connected to \(path)")
    var nextID: RequestID = 1
    if let launchURL { try carryOut(launchURL, on: connection, nextID: &nextID) }
    while true {
        for message in try connection.receive() {
            switch message {
            case .openURL(let notice):
                say("demo app: openURL \(notice.url) (for \(notice.app))")
                try carryOut(notice.url, on: connection, nextID: &nextID)
            case .error(let error):
                say("demo app: error\(error.id.map { " (request \($0))" } ?? ""): \(error.error)", to: STDERR_FILENO)
            default:
                break
            }
        }
    }
} catch {
    say("demo app: \(error)", to: STDERR_FILENO)
    exit(1)
}
