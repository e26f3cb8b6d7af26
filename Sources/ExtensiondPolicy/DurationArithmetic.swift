// Saturating integer arithmetic on durations, shared by the policies.
// Everything is computed in whole nanoseconds (Int64: about 292 years), which
// keeps the policies exact and their tests reproducible.

extension Int64 {
    package func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    package func saturatingSubtract(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other > 0 ? .min : .max
    }

    package func saturatingMultiply(_ other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }
}

extension UInt64 {
    package func saturatingAdd(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}

extension Duration {
    /// Whole nanoseconds, truncated toward zero and clamped to `Int64`. One 128-bit
    /// division: `components` costs two and a multiplication, about 190 instructions,
    /// several times per update.
    var saturatingNanoseconds: Int64 {
        Int64(clamping: attoseconds / 1_000_000_000)
    }

    /// Whole nanoseconds, never negative: how the policies read configured lengths.
    var nonNegativeNanoseconds: Int64 { Swift.max(0, saturatingNanoseconds) }

    /// `base · 2^doublings`, capped at `cap`, without overflow for any `doublings`.
    /// Negative inputs count as zero.
    static func cappedDoubling(_ base: Duration, doublings: Int, cap: Duration) -> Duration {
        let base = base.nonNegativeNanoseconds
        let cap = cap.nonNegativeNanoseconds
        let doublings = Swift.max(0, doublings)
        // base · 2^d ≤ cap exactly when base ≤ cap >> d; checking this way cannot overflow.
        if doublings >= Int64.bitWidth - 1 || base > cap >> doublings {
            return .nanoseconds(cap)
        }
        return .nanoseconds(base << doublings)
    }

    /// A duration drawn uniformly from `0...upperBound` (whole nanoseconds).
    static func random(upTo upperBound: Duration, using generator: inout some RandomNumberGenerator) -> Duration {
        .nanoseconds(Int64.random(in: 0...upperBound.nonNegativeNanoseconds, using: &generator))
    }
}
