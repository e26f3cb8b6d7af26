/// A wall-clock time as the protocol carries it (in RFC 3339 text, see ``RFC3339``):
/// seconds since 1970-01-01T00:00:00Z, with the precision `Date` had, so that the protocol's
/// modules need no Foundation.
public struct UnixTime: Hashable, Comparable, Sendable {
    /// Seconds since 1970-01-01T00:00:00Z; negative before.
    public var secondsSince1970: Double

    /// Creates the time `secondsSince1970` seconds after the epoch.
    public init(secondsSince1970: Double) {
        self.secondsSince1970 = secondsSince1970
    }

    public static func < (lhs: UnixTime, rhs: UnixTime) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    /// Whole milliseconds since the epoch, rounded, clamped to `Int64` (0 for NaN): every
    /// RFC 3339 year fits, and a time a peer made up cannot trap a conversion.
    public var millisecondsSince1970: Int64 {
        let milliseconds = (secondsSince1970 * 1000).rounded()
        if milliseconds.isNaN { return 0 }
        if milliseconds >= Double(Int64.max) { return .max }  // Double(Int64.max) is 2^63
        return milliseconds <= Double(Int64.min) ? .min : Int64(milliseconds)
    }
}

extension UnixTime {
    /// `duration` after `time` (before it when negative): `.now + .seconds(30)`.
    public static func + (time: UnixTime, duration: Duration) -> UnixTime {
        let (seconds, attoseconds) = duration.components
        return UnixTime(secondsSince1970: time.secondsSince1970 + Double(seconds) + Double(attoseconds) * 1e-18)
    }
}
