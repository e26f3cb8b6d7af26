import Glibc

/// A point on CLOCK_MONOTONIC, in microseconds, as the loop measures time.
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

    /// `rhs` later (never earlier), saturating at the end of the clock.
    public static func + (lhs: MonotonicInstant, rhs: Duration) -> MonotonicInstant {
        let (sum, overflow) = lhs.microseconds.addingReportingOverflow(UInt64(max(0, rhs.wholeMicroseconds)))
        return MonotonicInstant(microseconds: overflow ? .max : sum)
    }

    /// The time from `earlier` to `self`; zero if `earlier` is later.
    public func since(_ earlier: MonotonicInstant) -> Duration {
        guard microseconds > earlier.microseconds else { return .zero }
        return .microseconds(Int64(microseconds - earlier.microseconds))
    }
}

extension Duration {
    /// The duration in whole microseconds, rounded toward zero, clamped to `Int64` (a
    /// configured or peer-given length may be far longer than the clock can count).
    public var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000)
        return sumOverflow ? (seconds < 0 ? .min : .max) : sum
    }
}
