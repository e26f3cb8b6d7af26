import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import Testing
import WireProtocol

@testable import ExtensionCoordination

/// The coordinator in-process, in virtual time: launches, coalescing, deadlines, the idle
/// exit and scheduled refreshes, with simulated processes (``SimulatedExtensions``).
@Suite struct ExtensionCoordinatorTests {
    @Test func aFirstPullLaunchesOnceAndLaterPullsAreServedFromTheCache() throws {
        let harness = try CoordinatorHarness([CoordinatorHarness.widget("w")])
        let first = try harness.pull("w")
        let joined = try harness.pull("w")
        harness.clock.advance(by: .milliseconds(139))
        #expect(first.outcome == nil, "launch (40 ms) and update (100 ms) are not over")
        harness.clock.advance(by: .milliseconds(1))
        #expect(first.outcome?.delivery == .updated)
        #expect(first.outcome?.result == .newData)
        #expect(first.latency == .milliseconds(140))
        #expect(joined.outcome?.delivery == .coalesced)
        #expect(joined.outcome?.state.snapshot?.version == 1)

        harness.clock.advance(by: .seconds(60))
        let cached = try harness.pull("w")
        #expect(cached.outcome?.delivery == .cached)
        #expect(cached.latency == .zero)
        #expect(harness.processes.launches["w"] == 1)
        #expect(harness.processes.updates(of: "w").count == 1)
        #expect(harness.pushes.map(\.snapshot.version) == [1])
    }

    @Test func anIdleExtensionIsStoppedAfterIdleExitAndRelaunchedByTheNextUpdate() throws {
        var spec = CoordinatorHarness.widget("w") {
            $0.pullCooldown = .seconds(1); $0.interval = .seconds(3600)
        }
        spec.idleExit = .seconds(30)
        let harness = try CoordinatorHarness([spec])
        try harness.pull("w")
        harness.clock.advance(by: .milliseconds(140))
        #expect(harness.processes.serving["w"] == false)
        harness.clock.advance(by: .seconds(29))
        #expect(harness.processes.stops.isEmpty)
        harness.clock.advance(by: .seconds(1))
        #expect(harness.processes.stops.map(\.reason) == [.idle])
        harness.clock.advance(by: .seconds(1))
        #expect(harness.processes.phase(of: "w") == .notRunning)

        try harness.coordinator.refresh(["w"])
        harness.clock.advance(by: .milliseconds(140))
        #expect(harness.processes.launches["w"] == 2)
        #expect(harness.processes.updates(of: "w").map(\.reason) == [.pull, .manual])
        #expect(harness.pushes.map(\.snapshot.version) == [1, 2])
    }

    @Test func anUpdateWithoutAnAnswerIsKilledAtItsDeadlineAndThePullFails() throws {
        let harness = try CoordinatorHarness([CoordinatorHarness.widget("w") { $0.deadline = .seconds(2) }])
        harness.processes.behaviours["w"] = .init(answer: { _ in nil })
        let pull = try harness.pull("w")
        // The deadline counts from the pull that started the update, launch included.
        harness.clock.advance(by: .milliseconds(1999))
        #expect(harness.processes.kills.isEmpty)
        harness.clock.advance(by: .milliseconds(1))
        #expect(harness.processes.kills.map(\.reason) == [.deadline])
        #expect(pull.outcome?.result == .failed)
        #expect(pull.outcome?.state.error == "no answer before the deadline")
        harness.clock.advance(by: .seconds(1))
        #expect(pull.answers == 1)
        #expect(harness.processes.phase(of: "w") == .notRunning)
    }

    @Test func anExtensionThatNeverSendsReadyIsKilledAtStartTimeout() throws {
        var spec = CoordinatorHarness.widget("w")
        spec.startTimeout = .seconds(5)
        let harness = try CoordinatorHarness([spec])
        harness.processes.behaviours["w"] = .init(hangsAtLaunch: true)
        let pull = try harness.pull("w")
        harness.clock.advance(by: .seconds(5))
        #expect(harness.processes.kills.map(\.reason) == [.deadline])
        harness.clock.advance(by: .milliseconds(1))
        #expect(pull.outcome?.result == .failed)
        #expect(pull.outcome?.state.error?.contains("ended (deadline)") == true)
    }

    @Test func scheduledRefreshesFollowTheIntervalAndSpendTheBudget() throws {
        let harness = try CoordinatorHarness([
            CoordinatorHarness.widget("w") {
                $0.interval = .seconds(600)
                $0.minInterval = .seconds(60)
                $0.jitter = .zero
                $0.dailyBudget = 2
                $0.budgetBurst = 2
            }
        ])
        try harness.pull("w")
        harness.clock.advance(by: .seconds(4 * 600))
        let reasons = harness.processes.updates(of: "w").map(\.reason)
        #expect(reasons == [.pull, .schedule, .schedule], "a burst of two, then the budget is spent for hours")
        let starts = harness.processes.sent.filter { if case .update = $0.message { true } else { false } }.map(\.at)
        // The interval counts from the first result (140 ms); the idle run had exited, so a launch (40 ms) comes first.
        #expect(starts[1].since(starts[0]) == .seconds(600) + .milliseconds(140))
    }

    @Test func aBeginIsAnsweredWithItsCompleteAndAMissedDeadlineFailsIt() throws {
        var action = ExtensionSpec(id: "a", app: "app", point: .action, launch: LaunchSpec(command: ["/bin/true"]))
        action.activation = ["public.text": 1]
        action.refresh.deadline = .seconds(1)
        let harness = try CoordinatorHarness([action])
        var outcomes: [String] = []
        let item = Item(type: "public.text", value: .string("hi"))
        try harness.coordinator.perform("a", items: [item]) { outcome in
            if case .completed(let items) = outcome { outcomes.append("completed \(items.count)") }
        }
        harness.clock.advance(by: .milliseconds(140))
        #expect(outcomes == ["completed 1"])

        harness.processes.behaviours["a"] = .init(complete: { _ in nil })
        try harness.coordinator.perform("a", items: [item]) { outcome in
            if case .failed(let reason) = outcome { outcomes.append(reason) }
        }
        harness.clock.advance(by: .seconds(2))
        #expect(harness.processes.kills.map(\.reason) == [.deadline])
        #expect(outcomes.last == "the extension ended (deadline) before completing")
    }

    @Test func aCancelEndsTheBeginWithItsErrorAndOneForAnotherIdIsAViolation() throws {
        let action = ExtensionSpec(id: "a", app: "app", point: .action, launch: LaunchSpec(command: ["/bin/true"]))
        let harness = try CoordinatorHarness([action])
        harness.processes.behaviours["a"] = .init(complete: { .cancel(.init(id: $0.id, error: "not today")) })
        var outcomes: [String] = []
        let item = Item(type: "public.jpeg", path: "/tmp/a.jpg")
        let record = { (outcome: ActionOutcome) in
            switch outcome {
            case .completed: outcomes.append("completed")
            case .failed(let reason): outcomes.append(reason)
            }
        }
        try harness.coordinator.perform("a", items: [item], completion: record)
        harness.clock.advance(by: .milliseconds(140))
        #expect(outcomes == ["not today"])
        #expect(harness.processes.kills.isEmpty)

        harness.processes.behaviours["a"]?.complete = { .cancel(.init(id: RequestID(rawValue: $0.id.rawValue + 1), error: "x")) }
        try harness.coordinator.perform("a", items: [item], completion: record)
        harness.clock.advance(by: .milliseconds(140))
        #expect(harness.processes.kills.map(\.reason) == [.protocolViolation])
        #expect(outcomes.last == "the extension ended (protocol) before completing")
    }

    /// A host may name any instance in `visible`; only those that exist are remembered.
    @Test func hidingInstancesThatDoNotExistKeepsNothing() throws {
        let harness = try CoordinatorHarness([CoordinatorHarness.widget("w")])
        for index in 0..<1000 { harness.coordinator.setShown(false, "w", instance: "made-up-\(index)") }
        #expect(harness.coordinator.records["w"]?.hiddenInstances.isEmpty == true)
        try harness.coordinator.pull("w", mode: .compact, maxSize: Size(width: 1, height: 1), instance: "real") { _ in }
        harness.coordinator.setShown(false, "w", instance: "real")
        #expect(harness.coordinator.records["w"]?.hiddenInstances == ["real"])
    }
}
