import ExtensiondPolicy

extension Instant {
    /// `seconds` after the origin of virtual time.
    static func at(_ seconds: Int64) -> Instant {
        Instant(nanoseconds: 0) + .seconds(seconds)
    }
}

/// Seeds for property tests: many, but fixed, so a failure names its seed.
func seeds(_ count: UInt64) -> [UInt64] {
    Array(1...count)
}
