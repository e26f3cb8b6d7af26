import EventLoop

/// The time and timers the ``ExtensionCoordinator`` runs on: the event loop's, or a
/// test's virtual clock, so that its timing is tested without waiting.
package protocol CoordinatorClock: AnyObject {
    /// CLOCK_MONOTONIC now.
    var now: MonotonicInstant { get }
    /// Milliseconds since the Unix epoch now (dates on the wire are wall-clock times).
    var wallMilliseconds: Int64 { get }
    /// Runs `action` once at `deadline` (give or take `accuracy`), unless the returned
    /// timer is released first. `nil` when no timer could be armed.
    func timer(at deadline: MonotonicInstant, accuracy: Duration, _ action: @escaping () -> Void) -> (any CoordinatorTimer)?
}

/// An armed timer; releasing it cancels it.
package protocol CoordinatorTimer: AnyObject {
    /// Moves the timer to `deadline` (armed again if it had fired or was disarmed).
    func reschedule(at deadline: MonotonicInstant)
    /// Keeps the timer from firing until it is rescheduled.
    func disarm()
}

extension CoordinatorClock {
    package func timer(after delay: Duration, accuracy: Duration = .milliseconds(1), _ action: @escaping () -> Void) -> (any CoordinatorTimer)? {
        timer(at: now + delay, accuracy: accuracy, action)
    }
}

extension EventSource: CoordinatorTimer {}

extension EventLoop: CoordinatorClock {
    package var wallMilliseconds: Int64 { WallClock.nowMilliseconds() }

    package func timer(at deadline: MonotonicInstant, accuracy: Duration, _ action: @escaping () -> Void) -> (any CoordinatorTimer)? {
        addTimer(at: deadline, accuracy: accuracy, handler: action)
    }
}
