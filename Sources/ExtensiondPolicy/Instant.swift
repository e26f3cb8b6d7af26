/// A point in virtual or monotonic time: nanoseconds since an origin that
/// the caller chooses.
///
/// Policies never read a clock; the caller passes `now` in. The daemon maps its
/// monotonic clock onto `Instant`; tests simply count nanoseconds from zero.
/// Arithmetic saturates instead of trapping, so a far-away instant (a `never`
/// hint, a huge backoff) cannot crash the daemon.
public struct Instant: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Nanoseconds since the caller's origin.
    public var nanoseconds: Int64

    /// The instant `nanoseconds` after the caller's origin.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Decodes from a single integer (nanoseconds), to keep persisted state small.
    public init(from decoder: any Decoder) throws {
        nanoseconds = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// Encodes as a single integer (nanoseconds).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(nanoseconds)
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// The instant `duration` later (earlier when negative), saturating at the ends of time.
    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: lhs.nanoseconds.saturatingAdd(rhs.saturatingNanoseconds))
    }

    /// The instant `duration` earlier, saturating at the ends of time.
    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: lhs.nanoseconds.saturatingSubtract(rhs.saturatingNanoseconds))
    }

    /// The time from `rhs` to `lhs`: negative when `lhs` is earlier.
    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        .nanoseconds(lhs.nanoseconds.saturatingSubtract(rhs.nanoseconds))
    }

    public var description: String { "\(Duration.nanoseconds(nanoseconds)) after origin" }
}
