import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// The output capture budget (issue 19, item 9), in virtual time: never more than
/// `burst + rate · t` bytes in any window of length `t`, over random reads and gaps and
/// at the extremes of every figure.
@Suite struct ByteRateBudgetTests {
    @Test func startsFullRefillsAtItsRateAndSaysWhenBytesAreBack() {
        var budget = ByteRateBudget(bytesPerSecond: 1000, burst: 4000, now: .at(0))
        #expect(budget.take(10_000, at: .at(0)) == 4000)
        #expect(budget.take(1, at: .at(0)) == 0)
        #expect(budget.instant(whenAvailable: 500, at: .at(0)) == Instant(nanoseconds: 500_000_000))
        #expect(budget.take(600, at: Instant(nanoseconds: 500_000_000)) == 500)
        #expect(budget.available(at: .at(100)) == 4000)
        #expect(budget.instant(whenAvailable: 4001, at: .at(0)) == nil, "more than the burst never comes")
    }

    static let extremes = [0, 1, 2, 4095, 4096, 1 << 20, Int(Int32.max), Int.max - 1, Int.max]

    @Test(arguments: seeds(200))
    func noWindowGetsMoreThanBurstPlusRate(seed: UInt64) {
        var random = SeededRandom(seed: seed &* 7919)
        let pick = { (random: inout SeededRandom) -> Int in
            Bool.random(using: &random) ? Self.extremes.randomElement(using: &random)! : Int.random(in: 0...(1 << 22), using: &random)
        }
        let rate = pick(&random)
        let burst = pick(&random)
        var now = Instant(nanoseconds: Int64.random(in: Int64.min / 2...Int64.max / 2, using: &random))
        var budget = ByteRateBudget(bytesPerSecond: rate, burst: burst, now: now)
        var taken: [(at: Instant, bytes: Int)] = []
        for _ in 0..<200 {
            let gap = Int64.random(in: 0...3, using: &random) == 0 ? 0 : Int64.random(in: 0...2_000_000_000, using: &random)
            now = now + .nanoseconds(gap)
            let wanted = pick(&random)
            let available = budget.available(at: now)
            let granted = budget.take(wanted, at: now)
            #expect(granted == min(wanted, available) && granted >= 0 && granted <= burst, "seed \(seed)")
            if granted < wanted, let back = budget.instant(whenAvailable: 1, at: now) {
                #expect(back > now && budget.available(at: back) >= 1, "seed \(seed)")
            }
            taken.append((now, granted))
        }
        // Every window that starts and ends at a take.
        for start in taken.indices {
            var sum = 0
            for end in start..<taken.count {
                sum = sum.addingReportingOverflow(taken[end].bytes).overflow ? .max : sum + taken[end].bytes
                let seconds = Double(taken[end].at.nanoseconds - taken[start].at.nanoseconds) / 1e9
                if Double(sum) > Double(burst) + Double(rate) * seconds + 1 {
                    Issue.record("seed \(seed): \(sum) bytes in \(seconds) s")
                }
            }
        }
    }

    @Test func aClockGoingBackAddsNothing() {
        var budget = ByteRateBudget(bytesPerSecond: 1000, burst: 1000, now: .at(100))
        #expect(budget.take(1000, at: .at(100)) == 1000)
        #expect(budget.take(1, at: .at(50)) == 0)
        #expect(budget.available(at: .at(101)) == 1000)
    }
}
