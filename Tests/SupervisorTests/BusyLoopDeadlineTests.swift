import ExtensiondConfig
import Testing
import WireProtocol

@testable import ExtensionCoordination

/// A daemon whose loop is busy past a deadline (200 launches in one `start` on a loaded
/// machine took longer than `start_timeout`) has not read what the extension sent in time:
/// before a deadline kills, the coordinator reads what waits, and an extension that
/// answered in time is not killed. Here the simulated extension's messages wait unread
/// until the coordinator asks.
@Suite struct BusyLoopDeadlineTests {
    @Test func aReadyWaitingUnreadAtStartTimeoutIsNotAMissedDeadline() throws {
        var spec = CoordinatorHarness.widget("w")
        spec.startTimeout = .seconds(5)
        spec.refresh.deadline = .seconds(10)
        let harness = try CoordinatorHarness([spec])
        harness.processes.behaviours["w"] = .init(unreadUntilAsked: true)
        let pull = try harness.pull("w")

        harness.clock.advance(by: .seconds(5))
        #expect(harness.processes.kills.isEmpty)
        #expect(harness.processes.phase(of: "w") == .ready)
        // The update's result waits too, and is read at its deadline instead of failing it.
        harness.clock.advance(by: .seconds(10))
        #expect(harness.processes.kills.isEmpty)
        #expect(pull.outcome?.result == .newData)
    }

    @Test func aCompleteWaitingUnreadAtTheDeadlineCompletesTheBegin() throws {
        var action = ExtensionSpec(id: "a", app: "app", point: .action, launch: LaunchSpec(command: ["/bin/true"]))
        action.activation = ["public.text": 1]
        action.refresh.deadline = .seconds(1)
        let harness = try CoordinatorHarness([action])
        harness.processes.behaviours["a"] = .init(unreadUntilAsked: true)
        var outcomes: [String] = []
        try harness.coordinator.perform("a", items: [Item(type: "public.text", value: .string("hi"))]) { outcome in
            switch outcome {
            case .completed(let items): outcomes.append("completed \(items.count)")
            case .failed(let reason): outcomes.append(reason)
            }
        }
        harness.clock.advance(by: .seconds(10))
        #expect(harness.processes.kills.isEmpty)
        #expect(outcomes == ["completed 1"])
    }

    @Test func anExtensionThatSentNothingIsStillKilled() throws {
        var spec = CoordinatorHarness.widget("w")
        spec.startTimeout = .seconds(5)
        let harness = try CoordinatorHarness([spec])
        harness.processes.behaviours["w"] = .init(hangsAtLaunch: true, unreadUntilAsked: true)
        _ = try harness.pull("w")
        harness.clock.advance(by: .seconds(5))
        #expect(harness.processes.pendingReads == 1)
        #expect(harness.processes.kills.map(\.reason) == [.deadline])
    }
}
