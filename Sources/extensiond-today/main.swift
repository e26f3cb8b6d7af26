/// extensiond-today: the Today view, a host that serves every enabled widget as a web page.
///
/// This program owns the page's transport: the HTTP server, the static files, one
/// host-socket connection per open page relayed over Server-Sent Events, and the asset
/// fetches. It must not interpret snapshots or cards (the page renders them: web/cards.js)
/// nor decide what to refresh (the daemon does). docs/HOSTS.md describes it.
import EventLoop
import Glibc
import HTTPServer
import HostClient

let usage = """
    usage: extensiond-today [--listen ADDR:PORT] [--socket PATH] [--control PATH] [--instance EXTENSION=INSTANCE]...
      --listen  where the page is served (default 127.0.0.1:8080; a numeric address)
      --socket  the daemon's host.sock (default $EXTENSIOND_HOST_SOCKET, else \(HostSocket.demoPath))
      --control   the daemon's control.sock, read by the System page (default: beside the host socket)
      --instance  show this instance of the widget (repeatable; e.g. demo.weather=Paris)
    """

func say(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}

func fail(_ message: String, status: Int32 = 2) -> Never {
    say("extensiond-today: \(message)", to: STDERR_FILENO)
    exit(status)
}

var arguments = TodayArguments(socket: HostSocket.path { getenv($0).map { String(cString: $0) } })
switch arguments.parse(Array(CommandLine.arguments.dropFirst())) {
case .run: break
case .help:
    say(usage)
    exit(0)
case .invalid(let reason): fail("\(reason)\n\(usage)")
}

do {
    let loop = try EventLoop()
    let today = try TodayServer(
        loop: loop, address: arguments.listen, hostSocket: arguments.socket, controlSocket: arguments.controlSocket, instances: arguments.instances)
    _ = try loop.addSignal(SIGTERM) { _ in loop.exit() }
    _ = try loop.addSignal(SIGINT) { _ in loop.exit() }
    say("extensiond-today: serving http://\(arguments.listen)/ for \(arguments.socket)")
    let status = try loop.run()
    today.close()
    exit(status)
} catch {
    fail("\(error)", status: 1)
}
