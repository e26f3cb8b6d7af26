import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

@Suite struct BackoffTests {
    let backoff = Backoff(base: .seconds(30), cap: .seconds(3600))

    @Test func ceilingDoublesFromBaseUpToCap() {
        let ceilings = (1...9).map { backoff.ceiling(forAttempt: $0) }
        #expect(ceilings == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600].map { Duration.seconds($0) })
    }

    @Test func attemptsBelowOneCountAsOne() {
        #expect(backoff.ceiling(forAttempt: 0) == .seconds(30))
        #expect(backoff.ceiling(forAttempt: -7) == .seconds(30))
    }

    @Test(arguments: [63, 64, 65, 1_000, Int.max])
    func hugeAttemptsStayAtTheCap(attempt: Int) {
        #expect(backoff.ceiling(forAttempt: attempt) == .seconds(3600))
        var generator = SeededRandom(seed: UInt64(truncatingIfNeeded: attempt))
        #expect(backoff.delay(forAttempt: attempt, using: &generator) <= .seconds(3600))
    }

    @Test func hugeLengthsDoNotOverflow() {
        let huge = Backoff(base: .seconds(Int64.max / 2), cap: .seconds(Int64.max))
        let cap = Duration.nanoseconds(Int64.max)
        #expect(huge.ceiling(forAttempt: 1) == cap)
        #expect(huge.ceiling(forAttempt: 100) == cap)
    }

    @Test func zeroOrNegativeLengthsGiveNoDelay() {
        var generator = SeededRandom(seed: 1)
        let zero = Backoff(base: .zero, cap: .seconds(10))
        let negative = Backoff(base: .seconds(-5), cap: .seconds(-1))
        #expect(zero.delay(forAttempt: 5, using: &generator) == .zero)
        #expect(negative.delay(forAttempt: 5, using: &generator) == .zero)
    }

    /// Delays of attempt n lie in [0, min(cap, base·2^(n−1))], computed here by plain doubling.
    @Test func delaysStayWithinTheirCeiling() {
        var generator = SeededRandom(seed: 42)
        for _ in 0..<20_000 {
            let base = Int64.random(in: 0...1_000_000_000_000, using: &generator)
            let cap = Int64.random(in: 0...(1 << 62), using: &generator)
            let attempt = Int.random(in: 1...200, using: &generator)
            var expected = min(base, cap)
            for _ in 1..<attempt where expected < cap {
                expected = min(cap, expected * 2)
            }
            let backoff = Backoff(base: .nanoseconds(base), cap: .nanoseconds(cap))
            #expect(backoff.ceiling(forAttempt: attempt) == .nanoseconds(expected))
            let delay = backoff.delay(forAttempt: attempt, using: &generator)
            #expect(delay >= .zero && delay <= .nanoseconds(expected))
        }
    }

    /// Full jitter uses the whole range, not just its top.
    @Test func delaysSpreadOverTheWholeRange() {
        var generator = SeededRandom(seed: 7)
        let delays = (0..<4_000).map { _ in backoff.delay(forAttempt: 3, using: &generator) }
        #expect(delays.contains { $0 < .seconds(12) })
        #expect(delays.contains { $0 > .seconds(108) })
    }
}
