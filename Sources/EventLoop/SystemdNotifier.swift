import Glibc
import Sockets

/// Tells systemd about the daemon's state as `sd_notify` does: one datagram of
/// `NAME=value` lines to `$NOTIFY_SOCKET`, a socket path or an abstract address written
/// `@name`; a no-op without it.
public struct SystemdNotifier: Sendable {
    /// `$NOTIFY_SOCKET` when the notifier was made.
    public let socket: String?

    public init(socket: String? = getenv("NOTIFY_SOCKET").map { String(cString: $0) }) {
        self.socket = socket.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The socket bound and the daemon serving: `READY=1` with a status line. The only
    /// notification that waits for room in systemd's queue: systemd waits for it.
    public func ready(status: String) { send("READY=1\nSTATUS=\(status)", waiting: true) }

    // Everything after start-up is sent by the event loop and never waits: when the
    // receiver's queue is full the notification is dropped instead of stalling the loop
    // (a blocking send, as `sd_notify` makes, held every socket of the daemon for seconds
    // per reload in a reload storm against a busy or absent reader). Under `Type=notify`
    // these are informational; only the first `READY=1` is awaited by systemd.

    /// A one-line summary shown by `systemctl status`; it goes out with every end of a run.
    public func status(_ line: String) { send("STATUS=\(line)") }

    public func reloading() { send("RELOADING=1") }

    /// After a reload: ready again.
    public func reloaded(status: String) { send("READY=1\nSTATUS=\(status)") }

    public func stopping() { send("STOPPING=1") }

    /// The loop is alive (`WatchdogSec=`).
    func watchdog() { send("WATCHDOG=1") }

    private func send(_ state: String, waiting: Bool = false) {
        guard let socket else { return }
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        let flags = Int32(MSG_NOSIGNAL) | (waiting ? 0 : Int32(MSG_DONTWAIT))
        let send = { (address: UnsafePointer<sockaddr>, length: socklen_t) in _ = sendto(fd, bytes, bytes.count, flags, address, length) }
        // A `vsock:` address is for a daemon in a VM, which this one never is.
        if socket.hasPrefix("@") {
            try? UnixSocket.withAbstractAddress(String(socket.dropFirst()), send)
        } else if socket.hasPrefix("/") {
            try? UnixSocket.withAddress(socket, send)
        }
    }
}
