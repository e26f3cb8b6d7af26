import ExtensiondPolicy
import Testing

#if canImport(FoundationEssentials)
import ExtensiondTestSupport
import FoundationEssentials
#else
import Foundation
#endif

@Suite struct TokenBucketTests {
    let day = Duration.seconds(86_400)

    @Test func startsFullAndRefillsContinuously() {
        var bucket = TokenBucket(dailyBudget: 48, burst: 6, now: .at(0))
        let initialTakes = (1...7).map { _ in bucket.tryTake(at: .at(0)) }
        #expect(initialTakes == Array(repeating: true, count: 6) + [false])
        // 48 a day: one token every 30 minutes.
        #expect(bucket.nextAvailable(at: .at(0)) == .at(1800))
        let tooEarly = bucket.tryTake(at: .at(1799))
        let onTime = bucket.tryTake(at: .at(1800))
        #expect(!tooEarly && onTime)
        #expect(bucket.tokens(at: .at(1800 + 3 * 1800)) == 3)
        #expect(bucket.tokens(at: .at(1_000_000)) == 6)
    }

    @Test func aZeroBudgetOrBurstNeverRefills() {
        var noBudget = TokenBucket(dailyBudget: 0, burst: 2, now: .at(0))
        let burstTakes = [noBudget.tryTake(at: .at(0)), noBudget.tryTake(at: .at(0))]
        #expect(burstTakes == [true, true])
        #expect(noBudget.nextAvailable(at: .at(0)) == nil)
        let noBurst = TokenBucket(dailyBudget: 48, burst: 0, now: .at(0))
        #expect(noBurst.tokens(at: .at(1_000_000)) == 0)
        #expect(noBurst.nextAvailable(at: .at(0)) == nil)
    }

    @Test func aClockGoingBackwardsTakesNothingAway() {
        var bucket = TokenBucket(dailyBudget: 48, burst: 1, now: .at(1000))
        #expect(bucket.tokens(at: .at(0)) == 1)
        let took = bucket.tryTake(at: .at(0))
        #expect(took)
        #expect(bucket.nextAvailable(at: .at(0)) == .at(1800 + 1000))
    }

    @Test func reconfigureKeepsEarnedTokensWithinTheNewBurst() {
        var bucket = TokenBucket(dailyBudget: 48, burst: 6, now: .at(0))
        bucket.reconfigure(dailyBudget: 24, burst: 2, at: .at(10))
        #expect(bucket.tokens(at: .at(10)) == 2)
        let takes = [bucket.tryTake(at: .at(10)), bucket.tryTake(at: .at(10)), bucket.tryTake(at: .at(10))]
        #expect(takes == [true, true, false])
        #expect(bucket.nextAvailable(at: .at(10)) == .at(10 + 3600))
    }

    /// A token is available exactly at `nextAvailable`, never a nanosecond earlier.
    @Test func nextAvailableIsExact() {
        var generator = SeededRandom(seed: 11)
        for _ in 0..<5_000 {
            var bucket = TokenBucket(
                dailyBudget: Int.random(in: 1...10_000, using: &generator),
                burst: Int.random(in: 1...10, using: &generator),
                now: .at(0))
            var now = Instant.at(0)
            while bucket.tryTake(at: now) {}
            now = now + .nanoseconds(Int64.random(in: 0...1_000_000_000_000, using: &generator))
            guard let next = bucket.nextAvailable(at: now) else {
                Issue.record("a positive budget must refill")
                return
            }
            #expect(next >= now)
            if next > now {
                var early = bucket
                let tookEarly = early.tryTake(at: next - .nanoseconds(1))
                #expect(!tookEarly)
            }
            let tookOnTime = bucket.tryTake(at: next)
            #expect(tookOnTime)
        }
    }

    /// Over random schedules of several days, no 24-hour window holds more
    /// than burst + dailyBudget takes, and a greedy taker gets close to it.
    @Test(arguments: seeds(40))
    func noWindowOfADayExceedsBurstPlusBudget(seed: UInt64) {
        var generator = SeededRandom(seed: seed)
        let dailyBudget = Int.random(in: 0...100, using: &generator)
        let burst = Int.random(in: 0...12, using: &generator)
        var bucket = TokenBucket(dailyBudget: dailyBudget, burst: burst, now: .at(0))
        let greedy = Bool.random(using: &generator)
        var takes: [Instant] = []
        var now = Instant.at(0)
        let end = Instant.at(0) + day * 5
        while now < end {
            if bucket.tryTake(at: now) { takes.append(now) }
            if greedy {
                guard let next = bucket.nextAvailable(at: now) else { break }
                now = next
            } else {
                now = now + .seconds(Int64.random(in: 1...7_200, using: &generator))
            }
        }
        var windowStart = 0
        for (index, take) in takes.enumerated() {
            while take - takes[windowStart] >= day { windowStart += 1 }
            #expect(index - windowStart + 1 <= burst + dailyBudget, "seed \(seed): window ending \(take)")
        }
        if greedy, dailyBudget > 0, burst > 0 {
            // Taking each token as it comes: the burst, then one per refill period
            // (the last one falls due exactly at the end).
            #expect(takes.count >= burst + 5 * dailyBudget - 1, "seed \(seed): budget \(dailyBudget), burst \(burst)")
        }
    }

    @Test func survivesAJSONRoundTrip() throws {
        var bucket = TokenBucket(dailyBudget: 48, burst: 6, now: .at(0))
        let took = bucket.tryTake(at: .at(100))
        #expect(took)
        let decoded = try JSONDecoder().decode(TokenBucket.self, from: JSONEncoder().encode(bucket))
        #expect(decoded == bucket)
        #expect(decoded.tokens(at: .at(5000)) == bucket.tokens(at: .at(5000)))
    }

    @Test(arguments: [
        (#"{"dailyBudget":-1,"burst":6,"level":0,"updatedAt":0}"#, "dailyBudget"),
        (#"{"dailyBudget":48,"burst":-6,"level":0,"updatedAt":0}"#, "burst"),
        (#"{"dailyBudget":48,"burst":1,"level":-5,"updatedAt":0}"#, "level"),
        (#"{"dailyBudget":48,"burst":1,"level":86400000000001,"updatedAt":0}"#, "level"),
    ])
    func rejectsImpossiblePersistedValues(json: String, field: String) {
        #expect {
            try JSONDecoder().decode(TokenBucket.self, from: Data(json.utf8))
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.last?.stringValue == field && context.debugDescription.contains(field)
        }
    }
}
