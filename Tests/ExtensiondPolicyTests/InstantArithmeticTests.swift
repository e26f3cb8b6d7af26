import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// `Instant ± Duration` takes the duration's whole nanoseconds from one division of its
/// attoseconds. Checked against the nanoseconds worked out from `Duration.components`
/// (seconds and attoseconds, as the arithmetic did before), over durations of every size
/// and sign, the ends of `Int64`'s range and far past them.
@Suite struct InstantArithmeticTests {
    /// `duration` in whole nanoseconds, truncated toward zero and clamped to `Int64`.
    static func reference(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return saturating(scaled, plus: attoseconds / 1_000_000_000)
    }

    static func saturating(_ a: Int64, plus b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? .max : .min
    }

    static func saturating(_ a: Int64, minus b: Int64) -> Int64 {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        guard overflow else { return difference }
        return b > 0 ? .min : .max
    }

    static let extremes: [Duration] = [
        .zero, .nanoseconds(1), .nanoseconds(-1), .nanoseconds(Int64.max), .nanoseconds(Int64.min),
        .seconds(Int64.max / 1_000_000_000), .seconds(Int64.min / 1_000_000_000),
        .seconds(Int64.max / 1_000_000_000 + 1), .seconds(Int64.min / 1_000_000_000 - 1),
        .seconds(Int64.max), .seconds(Int64.min), .nanoseconds(Int64.max) + .nanoseconds(1),
        .nanoseconds(Int64.min) - .nanoseconds(1), Duration(secondsComponent: 0, attosecondsComponent: 999_999_999),
        Duration(secondsComponent: 0, attosecondsComponent: -999_999_999), Duration(secondsComponent: 1, attosecondsComponent: -1),
        Duration(secondsComponent: -1, attosecondsComponent: 1),
    ]

    /// A duration of a random size: up to 2^bits seconds, any attoseconds, either sign.
    static func random(using generator: inout SeededRandom) -> Duration {
        let bits = Int.random(in: 0...63, using: &generator)
        let seconds = Int64.random(in: 0...(Int64.max >> (63 - bits)), using: &generator)
        let attoseconds = Int64.random(in: 0..<1_000_000_000_000_000_000, using: &generator)
        let duration = Duration(secondsComponent: seconds, attosecondsComponent: attoseconds)
        return Bool.random(using: &generator) ? duration : .zero - duration
    }

    @Test func addingAndSubtractingMatchTheComponents() {
        var generator = SeededRandom(seed: 24)
        let durations = Self.extremes + (0..<20_000).map { _ in Self.random(using: &generator) }
        let origins: [Int64] = [0, 1, -1, Int64.max, Int64.min, Int64.max / 2, Int64.min / 2]
        for duration in durations {
            let nanoseconds = Self.reference(duration)
            for origin in origins + [Int64.random(in: .min ... .max, using: &generator)] {
                let instant = Instant(nanoseconds: origin)
                #expect((instant + duration).nanoseconds == Self.saturating(origin, plus: nanoseconds), "\(origin) + \(duration)")
                #expect((instant - duration).nanoseconds == Self.saturating(origin, minus: nanoseconds), "\(origin) - \(duration)")
            }
        }
    }
}
