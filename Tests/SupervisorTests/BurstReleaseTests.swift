import EventLoop
import Testing

@testable import Supervisor

/// The memory a burst left is given back once per burst of `ready`s, a quiet period after the last one.
@Suite struct BurstReleaseTests {
    @Test func aBurstOfReadiesIsReleasedOnceAQuietPeriodAfterTheLastOne() throws {
        let loop = try EventLoop()
        var releases: [MonotonicInstant] = []
        let release = BurstRelease(loop: loop) { releases.append(.current()) }
        var readies = 0
        var lastReady = MonotonicInstant.current()
        // Five readies 300 ms apart: each closer than the quiet period to the one before.
        var nextReady: EventSource?
        nextReady = loop.addTimer(after: .milliseconds(300)) {
            release.worked()
            lastReady = .current()
            readies += 1
            if readies < 5 { nextReady?.reschedule(at: loop.now + .milliseconds(300)) }
        }
        let end = loop.addTimer(after: .seconds(5)) { loop.exit() }
        _ = try loop.run()
        _ = (nextReady, end)
        #expect(readies == 5)
        try #require(releases.count == 1, "one release per burst, not one per ready: \(releases.count)")
        let after = releases[0].since(lastReady)
        #expect(after >= BurstRelease.quietPeriod - .milliseconds(1), "released \(after) after the last ready")
        #expect(after < BurstRelease.quietPeriod + .seconds(2), "released \(after) after the last ready")
    }

    /// Near `low` the release waits (the next kill would fault the code back in), a quiet
    /// period at a time, and comes once memory is no longer near it.
    @Test func aReleaseNearLowWaitsUntilMemoryIsNoLongerNearIt() throws {
        let loop = try EventLoop()
        var releases: [MonotonicInstant] = []
        var nearLow = true
        var asked = 0
        let release = BurstRelease(
            loop: loop,
            isPutOff: {
                asked += 1
                return nearLow
            }
        ) { releases.append(.current()) }
        release.worked()
        let start = MonotonicInstant.current()
        var farFromLow: MonotonicInstant?
        let relieved = loop.addTimer(after: .milliseconds(2500)) {
            #expect(releases.isEmpty, "released near low")
            nearLow = false
            farFromLow = .current()
        }
        let end = loop.addTimer(after: .seconds(6)) { loop.exit() }
        _ = try loop.run()
        _ = (relieved, end)
        #expect(asked >= 2, "asked once per quiet period: \(asked)")
        try #require(releases.count == 1, "\(releases.count) releases")
        let since = try #require(farFromLow)
        #expect(releases[0] >= since, "released \(releases[0].since(start)) after the burst")
        #expect(releases[0].since(since) < BurstRelease.quietPeriod + .seconds(2))
    }
}
