import ExtensiondConfig
import ExtensiondPolicy
import Testing
import WireProtocol

@testable import ExtensionCoordination

/// Instances the user adds and removes (the gallery), in virtual time: an added instance
/// has a slot in every mode with its params and its place's size; a removed one is
/// forgotten, its schedule and waiting pulls with it; a place clamps a preferred size.
@Suite struct AddedInstanceTests {
    let limits: [DisplayMode: Size] = [.compact: Size(width: 320, height: 110), .expanded: Size(width: 320, height: 396)]

    @Test func anAddedInstanceIsUpdatedWithItsParamsAndItsPlacesSize() throws {
        let harness = try CoordinatorHarness([CoordinatorHarness.widget("w")])
        try harness.coordinator.addInstance("w", "paris", params: ["city": "Paris"], placeLimits: limits)
        #expect(harness.coordinator.records["w"]?.slots.keys.filter { $0.instance == "paris" }.count == 2)
        var answered: PullOutcome?
        // The host names neither params nor a place: the added instance's are used.
        try harness.coordinator.pull("w", mode: .expanded, maxSize: Size(width: 1, height: 1), instance: "paris") { answered = $0 }
        harness.clock.advance(by: .milliseconds(140))
        let update = try #require(harness.processes.updates(of: "w").last)
        #expect(update.instance == "paris" && update.params == ["city": "Paris"] && update.maxSize == Size(width: 320, height: 396))
        #expect(answered?.result == .newData)
    }

    @Test func madeUpInstancesLeaveRoomForAddedOnes() throws {
        let harness = try CoordinatorHarness([CoordinatorHarness.widget("w")])
        for index in 0..<ExtensionCoordinator.maxInstances {
            _ = try harness.coordinator.subscribe("w", instance: "made-up-\(index)", params: nil)
        }
        #expect(throws: RequestRejection.self) { try harness.coordinator.subscribe("w", instance: "one-more", params: nil) }
        try harness.coordinator.addInstance("w", "paris", params: [:], placeLimits: [:])
        #expect(harness.coordinator.hasInstance("w", "paris"))
    }

    @Test func aRemovedInstanceIsForgottenWithItsScheduleAndItsWaitingPulls() throws {
        let widget = CoordinatorHarness.widget("w") {
            $0.interval = .seconds(60); $0.minInterval = .seconds(60)
        }
        let harness = try CoordinatorHarness([widget])
        harness.processes.behaviours["w"] = .init(updateTime: .seconds(5))
        try harness.coordinator.addInstance("w", "paris", params: [:], placeLimits: [:])
        try harness.pull("w")  // the widget itself keeps its schedule
        var waiting: PullOutcome?
        try harness.coordinator.pull("w", mode: .compact, maxSize: Size(width: 320, height: 110), instance: "paris") { waiting = $0 }
        harness.clock.advance(by: .seconds(1))
        #expect(harness.coordinator.removeInstance("w", "paris", because: "instance \"paris\" was removed"))
        #expect(waiting?.result == .failed && waiting?.state.error == "instance \"paris\" was removed")
        #expect(!harness.coordinator.hasInstance("w", "paris"))
        #expect(!harness.coordinator.removeInstance("w", "paris", because: "again"))
        harness.clock.advance(by: .seconds(600))
        let updates = harness.processes.updates(of: "w")
        #expect(updates.filter { $0.instance == "paris" }.isEmpty, "its queued update and its schedule went with it: \(updates)")
        #expect(updates.contains { $0.instance == nil && $0.reason == .schedule }, "the widget itself is still refreshed")
    }

    @Test func aPreferredSizeBeyondThePlaceIsClampedAndWarnedOnce() throws {
        let harness = try CoordinatorHarness([
            CoordinatorHarness.widget("w") {
                $0.pullCooldown = .zero; $0.interval = .seconds(1); $0.minInterval = .seconds(1)
            }
        ])
        harness.processes.behaviours["w"] = .init(answer: { update in
            .init(id: update.id, result: .newData, snapshot: ["n": 1], preferredSize: Size(width: 9999, height: 50))
        })
        var answers: [PullOutcome] = []
        for _ in 0..<3 {
            try harness.coordinator.pull("w", mode: .compact, maxSize: Size(width: 9999, height: 9999), placeLimit: limits[.compact]) { answers.append($0) }
            harness.clock.advance(by: .seconds(2))
        }
        #expect(answers.compactMap(\.preferredSize).allSatisfy { $0 == Size(width: 320, height: 50) } && answers.count == 3)
        #expect(harness.processes.updates(of: "w").allSatisfy { $0.maxSize == Size(width: 320, height: 110) })
        #expect(harness.events.recent(100).filter { $0.reason == "preferred-size" }.count == 1)
    }
}
