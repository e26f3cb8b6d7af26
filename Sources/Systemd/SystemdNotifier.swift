/// systemd integration of the daemon, through libsystemd: state notifications
/// (``SystemdNotifier``, the ``Watchdog``), sockets passed by socket activation
/// (``ActivatedSockets``), structured journal entries (``SystemdJournal``, behind
/// ``JournalWriting`` so tests can substitute it; ``JournalEnvironment`` says when).
///
/// This module owns how the daemon speaks to systemd; it must not decide what an entry,
/// a status line or a limit says (the daemon does), nor run the event loop itself.
import CSystemd
import EventLoop
import Glibc

/// Tells systemd about the daemon's state with `sd_notify` (to `$NOTIFY_SOCKET`, read at
/// every call; a no-op without it).
public struct SystemdNotifier: Sendable {
    public init() {}

    /// The socket bound and the daemon serving: `READY=1` with a status line. The only
    /// notification that waits for room in systemd's queue: systemd waits for it.
    public func ready(status: String) { send("READY=1\nSTATUS=\(status)", waiting: true) }

    // Everything after start-up is sent by the event loop and never waits: when the
    // receiver's queue is full the notification is dropped (``ReceiverQueue`` says why).
    // Under `Type=notify` these are informational; only the first `READY=1` is awaited.

    /// A one-line summary shown by `systemctl status`; it goes out with every end of a run.
    public func status(_ line: String) { send("STATUS=\(line)") }

    /// A reload begins: `RELOADING=1` with the time it began, as `Type=notify-reload`
    /// (systemd 253) requires and older systemd ignores.
    public func reloading(at now: MonotonicInstant = .current()) {
        send("RELOADING=1\nMONOTONIC_USEC=\(now.microseconds)")
    }

    /// After a reload: ready again.
    public func reloaded(status: String) { send("READY=1\nSTATUS=\(status)") }

    public func stopping() { send("STOPPING=1") }

    /// The loop is alive (`WatchdogSec=`).
    func watchdog() { send("WATCHDOG=1") }

    private func send(_ state: String, waiting: Bool = false) {
        guard let socket = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !socket.isEmpty else { return }
        if !waiting {
            guard ReceiverQueue(address: socket).hasRoom() else { return }
        }
        _ = ext_sd_notify(0, state)
    }
}
