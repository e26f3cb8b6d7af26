import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import Testing
import WireProtocol

@testable import ExtensionCoordination

/// Stale-while-revalidate in the coordinator, in virtual time: an expired snapshot is
/// answered at once and revalidated; a pull that waits gets the update's answer.
@Suite struct StaleWhileRevalidateTests {
    static func harness() throws -> CoordinatorHarness {
        let harness = try CoordinatorHarness([
            CoordinatorHarness.widget("w") {
                $0.interval = .seconds(60)
                $0.minInterval = .seconds(60)
                $0.pullCooldown = .seconds(5)
                // No budget: no scheduled refresh, every update here is one a pull started.
                $0.dailyBudget = 0
                $0.budgetBurst = 0
            }
        ])
        harness.processes.behaviours["w"] = .init(updateTime: .seconds(2))
        try harness.pull("w")
        harness.clock.advance(by: .seconds(3))
        return harness
    }

    @Test func anExpiredSnapshotIsAnsweredAtOnceAndTheUpdateReachesThePullingHost() throws {
        let harness = try Self.harness()
        harness.clock.advance(by: .seconds(60))  // 63 s after the first pull, 61 s after its result: expired
        var revalidations: [PullOutcome] = []
        let pull = CoordinatorHarness.Pull(sentAt: harness.clock.now)
        try harness.coordinator.pull(
            "w", mode: .compact, maxSize: Size(width: 1, height: 1),
            revalidated: { revalidations.append($0) }
        ) { outcome in
            pull.record(outcome, at: harness.clock.now)
        }
        #expect(pull.latency == .zero)
        #expect(pull.outcome?.result == .cached && pull.outcome?.expired == true)
        #expect(pull.outcome?.state.snapshot?.version == 1)

        harness.clock.advance(by: .milliseconds(2040))  // a launch (the idle run exited), then the update
        #expect(harness.processes.updates(of: "w").map(\.reason) == [.pull, .pull])
        #expect(revalidations.map(\.result) == [.newData])
        #expect(revalidations.first?.state.snapshot?.version == 2)
        #expect(pull.answers == 1)
        #expect(harness.pushes.map(\.snapshot.version) == [1, 2])
    }

    @Test func aPullThatWaitsIsAnsweredByTheUpdate() throws {
        let harness = try Self.harness()
        harness.clock.advance(by: .seconds(60))
        let pull = try harness.pull("w")
        #expect(pull.outcome == nil)
        harness.clock.advance(by: .milliseconds(2040))  // a launch (the idle run exited), then the update
        #expect(pull.outcome?.result == .newData && pull.outcome?.expired == false)
        #expect(pull.latency == .milliseconds(2040))
    }

    @Test func aFailedRevalidationReachesTheHostAndTheCooldownHoldsAfterIt() throws {
        let harness = try Self.harness()
        harness.processes.behaviours["w"]?.answer = { .init(id: $0.id, result: .failed, error: "offline") }
        harness.clock.advance(by: .seconds(60))
        var revalidations: [PullOutcome] = []
        try harness.coordinator.pull(
            "w", mode: .compact, maxSize: Size(width: 1, height: 1),
            revalidated: { revalidations.append($0) }
        ) { _ in }
        harness.clock.advance(by: .milliseconds(2040))  // a launch (the idle run exited), then the update
        #expect(revalidations.map(\.result) == [.failed])
        #expect(revalidations.first?.state.error == "offline")

        // 2 s after the failed attempt, within the 5 s cooldown: the cache answers, nothing runs.
        let again = CoordinatorHarness.Pull(sentAt: harness.clock.now)
        try harness.coordinator.pull(
            "w", mode: .compact, maxSize: Size(width: 1, height: 1),
            revalidated: { _ in
                Issue.record("no update, nothing to revalidate")
            }
        ) { again.record($0, at: harness.clock.now) }
        #expect(again.outcome?.result == .cached && again.outcome?.expired == false)
        #expect(again.outcome?.state.isStale == true)
        harness.clock.advance(by: .seconds(10))
        #expect(harness.processes.updates(of: "w").count == 2)
        #expect(harness.pushes.map(\.snapshot.version) == [1], "a failed update pushes nothing to subscribers")
    }
}
