import EventLoop
import ExtensiondPolicy

/// The policies' time is the loop's CLOCK_MONOTONIC, in nanoseconds.
extension MonotonicInstant {
    var policyInstant: Instant { Instant(nanoseconds: Int64(clamping: microseconds) &* 1000) }

    init(_ instant: Instant) {
        self.init(microseconds: UInt64(max(0, instant.nanoseconds / 1000)))
    }
}
