/// The demo's containing app: shows the URLs it is asked to open, whether it was launched
/// with one (its last argument) or is already running and connected to the host socket
/// (an `openURL` message). It owns only that; the socket is HostClient's.
import Glibc
import HostClient

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

say("demo app: running (pid \(getpid()))")
if let url = LaunchURL.from(arguments: CommandLine.arguments) {
    say("demo app: launched to open \(url)")
}

let path = HostSocket.path { getenv($0).map { String(cString: $0) } }
do {
    let connection = try HostConnection(path: path)
    say("demo app: connected to \(path)")
    while true {
        for case .openURL(let notice) in try connection.receive() {
            say("demo app: openURL \(notice.url) (for \(notice.app))")
        }
    }
} catch {
    say("demo app: \(error)", to: STDERR_FILENO)
    exit(1)
}
