import CSystemd
import Glibc
import Sockets

/// Tells systemd about the daemon's state (`sd_notify`); a no-op without `$NOTIFY_SOCKET`.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// The socket bound and the daemon serving: `READY=1` with a status line.
    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }

    // Everything after start-up is sent by the event loop and never waits: when the
    // receiver's queue is full the notification is dropped instead of stalling the loop
    // (`sd_notify` blocks then; a reload storm against a busy or absent reader held every
    // socket of the daemon for seconds per reload). Under `Type=notify` these are
    // informational; only the first `READY=1` is awaited by systemd.

    /// A one-line summary shown by `systemctl status`; it goes out with every end of a run.
    public func status(_ line: String) { sendWithoutWaiting("STATUS=\(line)") }

    public func reloading() { sendWithoutWaiting("RELOADING=1") }

    /// After a reload: ready again.
    public func reloaded(status: String) { sendWithoutWaiting("READY=1\nSTATUS=\(status)") }

    public func stopping() { sendWithoutWaiting("STOPPING=1") }

    private func send(_ state: String) {
        _ = sd_notify(0, state)
    }

    /// `sd_notify` without blocking, for a socket path (systemd's form); other address
    /// forms (abstract, vsock) go through `sd_notify`.
    private func sendWithoutWaiting(_ state: String) {
        guard let variable = getenv("NOTIFY_SOCKET") else { return }
        let path = String(cString: variable)
        guard path.hasPrefix("/") else { return send(state) }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        _ = try? UnixSocket.withAddress(path) { address, length in
            sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), address, length)
        }
    }
}
