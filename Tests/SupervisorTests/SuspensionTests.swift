import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import ExtensiondTestSupport
import Testing
import WireProtocol

@testable import Supervisor

/// Suspension in the coordinator, in virtual time: an idle extension is frozen after
/// `suspend_after`, thawed before any request reaches it, and still ends at `idle_exit`.
@Suite struct SuspensionTests {
    private func widget(suspendAfter: Duration, idleExit: Duration = .seconds(30)) -> ExtensionSpec {
        var spec = CoordinatorHarness.widget("w") {
            $0.pullCooldown = .seconds(1); $0.interval = .seconds(3600)
        }
        spec.suspendAfter = suspendAfter
        spec.idleExit = idleExit
        return spec
    }

    @Test func anIdleExtensionIsSuspendedThenThawedForItsNextRequest() throws {
        let harness = try CoordinatorHarness([widget(suspendAfter: .seconds(2))])
        try harness.pull("w")
        harness.clock.advance(by: .milliseconds(140))
        harness.clock.advance(by: .milliseconds(1999))
        #expect(harness.processes.suspended.isEmpty)
        harness.clock.advance(by: .milliseconds(1))
        #expect(harness.processes.suspended == ["w"])

        try harness.coordinator.refresh(["w"])
        #expect(harness.processes.suspended.isEmpty, "thawed before the request is sent")
        harness.clock.advance(by: .milliseconds(100))
        #expect(harness.processes.updates(of: "w").map(\.reason) == [.pull, .manual])
        #expect(harness.processes.launches["w"] == 1, "no new launch")
        #expect(harness.processes.sentWhileSuspended == 0)
        // Idle again: suspended again, once per idle spell.
        harness.clock.advance(by: .seconds(2))
        #expect(harness.processes.suspensions.map(\.id) == ["w", "w"])
    }

    @Test func aSuspendedExtensionStillEndsAtIdleExit() throws {
        let harness = try CoordinatorHarness([widget(suspendAfter: .seconds(2), idleExit: .seconds(30))])
        try harness.pull("w")
        harness.clock.advance(by: .milliseconds(140))
        harness.clock.advance(by: .seconds(29))
        #expect(harness.processes.suspended == ["w"] && harness.processes.stops.isEmpty)
        harness.clock.advance(by: .seconds(1))
        #expect(harness.processes.stops.map(\.reason) == [.idle])
        harness.clock.advance(by: .seconds(1))
        #expect(harness.processes.phase(of: "w") == .notRunning && harness.processes.suspended.isEmpty)
    }

    /// Zero, or not below `idle_exit`, turns suspension off.
    @Test(arguments: [Duration.zero, .seconds(30), .seconds(31)])
    func suspensionIsOffWhenItWouldNotComeBeforeTheIdleExit(suspendAfter: Duration) throws {
        let harness = try CoordinatorHarness([widget(suspendAfter: suspendAfter, idleExit: .seconds(30))])
        try harness.pull("w")
        harness.clock.advance(by: .seconds(40))
        #expect(harness.processes.suspensions.isEmpty)
        #expect(harness.processes.stops.map(\.reason) == [.idle])
    }

    /// A request arriving while frozen, at any moment of many random sequences, is never
    /// written to a frozen run.
    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func nothingIsEverSentToASuspendedRun(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let harness = try CoordinatorHarness([
            widget(
                suspendAfter: .milliseconds(Int64.random(in: 1...3000, using: &random)),
                idleExit: .seconds(Int64.random(in: 1...10, using: &random)))
        ])
        for _ in 0..<60 {
            if Bool.random(using: &random) { try harness.pull("w") } else { try harness.coordinator.refresh(["w"]) }
            harness.clock.advance(by: .milliseconds(Int64.random(in: 0...4000, using: &random)))
        }
        harness.clock.advance(by: .seconds(60))
        #expect(harness.processes.sentWhileSuspended == 0, "seed \(seed)")
    }

    /// The idle and suspend timers stay armed across requests (moved to the end of the
    /// quiet spell when they fire early): over random sequences of requests, including
    /// gaps just below, at and above each delay, a run is suspended exactly `suspend_after`
    /// and stopped exactly `idle_exit` after its last request ended, never sooner, and in
    /// every quiet spell long enough.
    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func suspensionAndIdleExitCountFromTheEndOfTheLastRequest(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let suspendAfter = Duration.milliseconds(Int64.random(in: 1...2000, using: &random))
        let idleExit = suspendAfter + .milliseconds(Int64.random(in: 1...3000, using: &random))
        let harness = try CoordinatorHarness([widget(suspendAfter: suspendAfter, idleExit: idleExit)])
        for _ in 0..<40 {
            if Bool.random(using: &random) { try harness.pull("w") } else { try harness.coordinator.refresh(["w"]) }
            let near = [suspendAfter, idleExit].randomElement(using: &random)! + .milliseconds(Int64.random(in: -2...2, using: &random))
            let gap = Bool.random(using: &random) ? near : .milliseconds(Int64.random(in: 0...4000, using: &random))
            harness.clock.advance(by: max(.zero, gap))
        }
        harness.clock.advance(by: idleExit + .seconds(1))
        let processes = harness.processes
        // Quiet spells: from each end of serving (the last of a repeated one) to the next
        // start, stop, or the end.
        var spells: [(from: MonotonicInstant, to: MonotonicInstant)] = []
        let changes = processes.servingChanges
        for (index, change) in changes.enumerated() where !change.serving && changes.dropFirst(index + 1).first?.serving != false {
            let next = changes.dropFirst(index + 1).first?.at ?? harness.clock.now
            let stop = processes.stops.first { $0.at >= change.at }?.at ?? harness.clock.now
            spells.append((change.at, min(next, stop)))
        }
        for (delay, times) in [(suspendAfter, processes.suspensions.map(\.at)), (idleExit, processes.stops.map(\.at))] {
            let expected = spells.filter { $0.to.since($0.from) >= delay }.map { $0.from + delay }
            #expect(times == expected, "seed \(seed): delay \(delay), spells \(spells)")
        }
    }
}
