import EventLoop
import ExtensiondPolicy

/// The policies' time is the loop's CLOCK_MONOTONIC, in nanoseconds.
extension MonotonicInstant {
    package var policyInstant: Instant { Instant(nanoseconds: Int64(clamping: microseconds) &* 1000) }

    /// The first loop instant at or after `instant`: a timer armed for a policy's deadline
    /// must not fire before it, or the policy, reading an earlier now, asks for the same
    /// deadline again and the timer fires again at once.
    package init(notBefore instant: Instant) {
        let nanoseconds = max(0, instant.nanoseconds)
        self.init(microseconds: UInt64(nanoseconds / 1000 + (nanoseconds % 1000 == 0 ? 0 : 1)))
    }
}
