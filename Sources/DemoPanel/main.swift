/// The demo panel, a host: lists the extensions, subscribes to the enabled ones and prints
/// every snapshot that arrives, pulling the enabled widgets every 10 s and when Enter is
/// pressed. It owns only its presentation; the protocol is WireProtocol's and the socket
/// HostClient's.
import Glibc
import HostClient

// Every line is already written when SIGTERM arrives (see `Console`), so exiting at once loses nothing.
signal(SIGTERM) { _ in _exit(0) }

let path = HostSocket.path { getenv($0).map { String(cString: $0) } }
do {
    let connection = try HostConnection(path: path)
    Console.line("demo panel: connected to \(path)")
    var panel = Panel(connection: connection)
    try panel.run()
} catch {
    Console.error("demo panel: \(error)")
    exit(1)
}
