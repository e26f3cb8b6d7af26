import Glibc

extension EventLoop {
    /// Sends `WATCHDOG=1` between a half and three quarters of `$WATCHDOG_USEC` after the
    /// last one, from a timer of the loop (so a stuck loop stops the pings), when systemd asks
    /// for it: `$WATCHDOG_USEC` set and `$WATCHDOG_PID` unset or this process.
    /// Returns whether the watchdog is active.
    @discardableResult
    public func enableWatchdog() -> Bool {
        guard let interval = Self.watchdogInterval(), watchdog == nil else { return watchdog != nil }
        let notifier = SystemdNotifier()
        watchdog = try? addTimer(after: .microseconds(interval / 2), accuracy: .microseconds(interval / 4)) { [unowned self] in
            notifier.watchdog()
            self.watchdog?.reschedule(at: self.now + .microseconds(interval / 2))
        }
        return watchdog != nil
    }

    /// `$WATCHDOG_USEC` in microseconds, if it is meant for this process.
    private static func watchdogInterval() -> Int64? {
        if let pid = getenv("WATCHDOG_PID"), pid_t(String(cString: pid)) != getpid() { return nil }
        guard let text = getenv("WATCHDOG_USEC"), let interval = Int64(String(cString: text)), interval > 0 else { return nil }
        return interval
    }
}
