import CSystemd
import EventLoop

/// Sends `WATCHDOG=1` between a half and three quarters of the watchdog interval after the
/// last one, from a timer of the loop (so a stuck loop stops the pings), when systemd asks
/// for it (`sd_watchdog_enabled`: `$WATCHDOG_USEC` set, `$WATCHDOG_PID` unset or this
/// process).
public final class Watchdog {
    /// The interval systemd expects pings within.
    public let interval: Duration
    private var timer: EventSource?

    /// Starts the pings on `loop`; `nil` when systemd asks for none.
    public init?(loop: EventLoop, notifier: SystemdNotifier = SystemdNotifier()) {
        var microseconds: UInt64 = 0
        guard ext_sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        interval = .microseconds(Int64(clamping: microseconds))
        let half = interval / 2
        timer = loop.addTimer(after: half, accuracy: interval / 4) { [unowned self, unowned loop] in
            notifier.watchdog()
            self.timer?.reschedule(at: loop.now + half)
        }
        guard timer != nil else { return nil }
    }
}
