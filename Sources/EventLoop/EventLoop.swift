/// The daemon's single-threaded event loop: sd-event underneath, Swift closures on top.
///
/// This module owns the loop, event sources (fds, timers, signals, child pidfds),
/// non-blocking UNIX sockets and systemd notification. It must not know about
/// extensions, hosts or policies: it only turns kernel events into callbacks.
import CSystemd
import Glibc
import Sockets

/// One sd-event loop. Every callback runs on the thread that calls ``run()``.
public final class EventLoop {
    let event: OpaquePointer
    /// A timer that never fires, added at once: sd-event opens a clock's timerfd with its
    /// first timer, and a daemon out of descriptors must still be able to arm timers.
    private var clockHolder: EventSource?

    /// Creates a loop. `SIGCHLD` must be blocked before any child source is added;
    /// ``blockChildSignal()`` does it and should run before threads exist.
    public init() throws(SystemError) {
        var event: OpaquePointer?
        try SystemError.check(sd_event_new(&event), "sd_event_new")
        self.event = event!
        clockHolder = try addTimer(at: MonotonicInstant(microseconds: .max - 1), accuracy: .seconds(3600)) {}
    }

    deinit { sd_event_unref(event) }

    /// Blocks SIGCHLD in the calling thread, as child sources require.
    public static func blockChildSignal() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGCHLD)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Runs until ``exit(code:)``; returns the exit code.
    public func run() throws(SystemError) -> Int32 {
        let result = sd_event_loop(event)
        try SystemError.check(result, "sd_event_loop")
        return result
    }

    /// Asks the loop to stop after the current iteration.
    public func exit(code: Int32 = 0) {
        sd_event_exit(event, code)
    }

    /// Sends `WATCHDOG=1` at half of `$WATCHDOG_USEC` when systemd asks for it.
    /// Returns whether the watchdog is active.
    @discardableResult
    public func enableWatchdog() -> Bool {
        sd_event_set_watchdog(event, 1) > 0
    }

    /// The loop's cached monotonic time of the current iteration.
    public var now: MonotonicInstant {
        var usec: UInt64 = 0
        sd_event_now(event, CLOCK_MONOTONIC, &usec)
        return MonotonicInstant(microseconds: usec)
    }
}

/// A point on CLOCK_MONOTONIC, in microseconds, as sd-event measures time.
public struct MonotonicInstant: Sendable, Hashable, Comparable {
    public var microseconds: UInt64

    public init(microseconds: UInt64) { self.microseconds = microseconds }

    /// Reads CLOCK_MONOTONIC now (outside the loop's cached time).
    public static func current() -> MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(microseconds: UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000)
    }

    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.microseconds < rhs.microseconds
    }

    public static func + (lhs: MonotonicInstant, rhs: Duration) -> MonotonicInstant {
        MonotonicInstant(microseconds: lhs.microseconds &+ UInt64(max(0, rhs.wholeMicroseconds)))
    }

    /// The time from `earlier` to `self`; zero if `earlier` is later.
    public func since(_ earlier: MonotonicInstant) -> Duration {
        guard microseconds > earlier.microseconds else { return .zero }
        return .microseconds(Int64(microseconds - earlier.microseconds))
    }
}

extension Duration {
    /// The duration in whole microseconds, rounded down.
    public var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
