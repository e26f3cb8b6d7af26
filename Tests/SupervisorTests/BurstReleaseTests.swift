import EventLoop
import Testing

@testable import Supervisor

/// The heap is trimmed once per burst of `ready`s, a quiet period after the last one.
@Suite struct HeapTrimTests {
    @Test func aBurstOfReadiesIsTrimmedOnceAQuietPeriodAfterTheLastOne() throws {
        let loop = try EventLoop()
        var trims: [MonotonicInstant] = []
        let heap = HeapTrim(loop: loop) { trims.append(.current()) }
        var readies = 0
        var lastReady = MonotonicInstant.current()
        // Five readies 300 ms apart: each closer than the quiet period to the one before.
        var nextReady: EventSource?
        nextReady = loop.addTimer(after: .milliseconds(300)) {
            heap.extensionReady()
            lastReady = .current()
            readies += 1
            if readies < 5 { nextReady?.reschedule(at: loop.now + .milliseconds(300)) }
        }
        let end = loop.addTimer(after: .seconds(5)) { loop.exit() }
        _ = try loop.run()
        _ = (nextReady, end)
        #expect(readies == 5)
        try #require(trims.count == 1, "one trim per burst, not one per ready: \(trims.count)")
        let after = trims[0].since(lastReady)
        #expect(after >= HeapTrim.quietPeriod - .milliseconds(1), "trimmed \(after) after the last ready")
        #expect(after < HeapTrim.quietPeriod + .seconds(2), "trimmed \(after) after the last ready")
    }
}
