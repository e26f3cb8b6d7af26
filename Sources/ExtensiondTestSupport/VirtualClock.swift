import DaemonSupport
import EventLoop

/// A ``CoordinatorClock`` that moves only when a test advances it, firing due timers in
/// deadline order (ties in arming order). Fake because the event loop's clock is real time.
package final class VirtualClock: CoordinatorClock {
    package private(set) var now = MonotonicInstant(microseconds: 1_000_000_000)
    /// Wall-clock time at the virtual origin: 2026-11-23T00:00:00Z.
    private let wallOrigin: Int64 = 1_795_392_000_000
    private let origin = MonotonicInstant(microseconds: 1_000_000_000)
    private var timers: [Weak] = []
    private var armings: UInt64 = 0

    package var wallMilliseconds: Int64 { wallOrigin + Int64((now.microseconds - origin.microseconds) / 1000) }

    package func timer(at deadline: MonotonicInstant, accuracy: Duration, _ action: @escaping () -> Void) -> (any CoordinatorTimer)? {
        let timer = Timer(clock: self, action: action)
        timers.append(Weak(timer))
        timer.reschedule(at: deadline)
        return timer
    }

    /// Runs everything due within `duration`, in order, and ends `duration` later.
    package func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// A livelock (a timer that keeps re-arming for the present) is a failed test, not a hang.
    package func advance(to end: MonotonicInstant) {
        var firingsAtThisInstant = 0
        while let next = nextDue(by: end) {
            firingsAtThisInstant = next.deadline! > now ? 0 : firingsAtThisInstant + 1
            guard firingsAtThisInstant < Self.livelockFirings else {
                onLivelock("timers fired \(Self.livelockFirings) times at \(now) without time moving on")
                break
            }
            now = max(now, next.deadline!)
            next.deadline = nil
            next.action()
        }
        now = max(now, end)
    }

    private static let livelockFirings = 10_000

    /// Told of a livelock; a test records it as a failure (this target does not link Testing).
    package var onLivelock: (String) -> Void = { fatalError($0) }

    package init() {}

    /// When the earliest armed timer is due, if any is.
    package var nextDeadline: MonotonicInstant? {
        timers.removeAll { $0.timer == nil }
        return timers.compactMap { $0.timer?.deadline }.min()
    }

    /// Runs what is due right now (timers armed for the present by the last step).
    package func settle() { advance(by: .zero) }

    private func nextDue(by end: MonotonicInstant) -> Timer? {
        timers.removeAll { $0.timer == nil }
        return timers.compactMap(\.timer)
            .filter { $0.deadline.map { $0 <= end } == true }
            .min { ($0.deadline!, $0.order) < ($1.deadline!, $1.order) }
    }

    fileprivate func nextOrder() -> UInt64 {
        armings += 1
        return armings
    }

    package final class Timer: CoordinatorTimer {
        private unowned let clock: VirtualClock
        fileprivate let action: () -> Void
        fileprivate var deadline: MonotonicInstant?
        fileprivate var order: UInt64 = 0

        fileprivate init(clock: VirtualClock, action: @escaping () -> Void) {
            self.clock = clock
            self.action = action
        }

        package func reschedule(at deadline: MonotonicInstant) {
            self.deadline = deadline
            order = clock.nextOrder()
        }

        package func disarm() {
            deadline = nil
        }
    }

    private struct Weak {
        weak var timer: Timer?
        init(_ timer: Timer) { self.timer = timer }
    }
}
