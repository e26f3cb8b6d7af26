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
}

extension UnixTime {
    /// `duration` after `time` (before it when negative): `.now + .seconds(30)`.
    public static func + (time: UnixTime, duration: Duration) -> UnixTime {
        let (seconds, attoseconds) = duration.components
        return UnixTime(secondsSince1970: time.secondsSince1970 + Double(seconds) + Double(attoseconds) * 1e-18)
    }
}
