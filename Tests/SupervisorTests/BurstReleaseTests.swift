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
}
