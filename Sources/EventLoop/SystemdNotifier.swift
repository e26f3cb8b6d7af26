import CSystemd

/// Tells systemd about the daemon's state (`sd_notify`); a no-op without `$NOTIFY_SOCKET`.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// The socket bound and the daemon serving: `READY=1` with a status line.
    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }

    /// A one-line summary shown by `systemctl status`.
    public func status(_ line: String) { send("STATUS=\(line)") }

    public func reloading() { send("RELOADING=1") }

    /// After a reload: ready again.
    public func reloaded(status: String) { send("READY=1\nSTATUS=\(status)") }

    public func stopping() { send("STOPPING=1") }

    private func send(_ state: String) {
        _ = sd_notify(0, state)
    }
}
