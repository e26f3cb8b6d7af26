import EventLoop
import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

@testable import DaemonSupport

/// The policies count nanoseconds, the loop microseconds: a deadline crossing between them
/// must never move earlier. (A refresh planned at a sub-microsecond instant once made the
/// refresh timer fire before it, forever, in virtual time.)
@Suite struct PolicyClockTests {
    @Test(arguments: [0, 1, 999, 1000, 1001, 1_500_000_123, 9_000_000_000_000_000_001])
    func aDeadlineIsNeverEarlierInTheLoop(nanoseconds: Int64) {
        let instant = Instant(nanoseconds: nanoseconds)
        let loop = MonotonicInstant(notBefore: instant)
        #expect(loop.policyInstant >= instant)
        #expect(loop.policyInstant.nanoseconds - instant.nanoseconds < 1000)
    }

    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func retriesPlannedBetweenMicrosecondsLetTheClockMoveOn(seed: UInt64) throws {
        let harness = try CoordinatorHarness(
            [
                CoordinatorHarness.widget("w") {
                    $0.interval = .seconds(60)
                    $0.minInterval = .seconds(1)
                    $0.dailyBudget = 10_000
                    $0.budgetBurst = 100
                }
            ], seed: seed)
        harness.processes.behaviours["w"] = SimulatedExtensions.Behaviour()
        harness.processes.behaviours["w"]?.answer = { .init(id: $0.id, result: .failed, error: "offline") }
        try harness.pull("w")
        // Every update fails; each retry is planned after a random backoff, at any nanosecond.
        harness.clock.advance(by: .seconds(3600))
        #expect(harness.processes.updates(of: "w").filter { $0.reason == .schedule }.count >= 5)
    }
}
