import ExtensiondTestSupport
import EventLoop
import ExtensiondPolicy
import Testing
@testable import Pressure

/// ``PressureEpisode`` over thousands of random process tables in virtual time.
@Suite struct PressureEpisodeTests {
    static let mebibyte: UInt64 = 1 << 20
    static let thresholds = PressureThresholds(budget: 256 * mebibyte, low: 0.85, critical: 0.95)

    static func randomTree(_ random: inout SeededRandom) -> SimulatedTree {
        let processes = (0..<Int.random(in: 0...12, using: &random)).map { index in
            SimulatedTree.Process(
                candidate: KillCandidate(
                    id: "p\(index)", band: KillBand.allCases.randomElement(using: &random)!,
                    priority: Int.random(in: -2...2, using: &random),
                    lastUsed: Instant(nanoseconds: Int64.random(in: 0...5, using: &random)),
                    residentBytes: UInt64.random(in: 0...(60 * mebibyte), using: &random)
                ),
                stuck: Int.random(in: 0..<10, using: &random) == 0
            )
        }
        return SimulatedTree(processes: processes, baseline: UInt64.random(in: 0...(160 * mebibyte), using: &random))
    }

    @Test(arguments: 1...2000 as ClosedRange<UInt64>)
    func killsOnlyWhatTheWatermarksAskFor(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let tree = Self.randomTree(&random)
        let before = tree.processes
        let kills = PressureEpisode.run(after: PressureTrigger(cause: .usageThreshold, time: tree.now()), thresholds: Self.thresholds, in: tree)

        var killed = Set<String>()
        for kill in kills {
            // Every kill was decided past the low watermark, at the level the usage says.
            #expect(kill.treeUsageBytes >= Self.thresholds.lowBytes)
            #expect(kill.level == Self.thresholds.level(forUsage: kill.treeUsageBytes))
            #expect(kill.victim.band != .host)
            #expect(kill.victim.band.isKillable(at: kill.level))
            #expect(killed.insert(kill.victim.id).inserted, "a victim chosen twice")
            #expect(kill.trigger <= kill.decision && kill.decision <= kill.signal)
            if let empty = kill.empty { #expect(kill.signal <= empty) }
        }
        // Each follow-up decision was triggered by the previous victim leaving.
        #expect(kills.first.map { $0.cause == .usageThreshold } ?? true)
        #expect(kills.dropFirst().allSatisfy { $0.cause == nil })
        for (previous, next) in zip(kills, kills.dropFirst()) {
            if let empty = previous.empty { #expect(next.trigger == empty) }
        }
        #expect(tree.kills.map(\.victim.id) == kills.map(\.victim.id))
        #expect(tree.signalled == kills.map(\.victim.id))

        // It stopped because usage fell under low or nothing more may be killed at its level.
        let usage = tree.treeUsage()!
        let level = Self.thresholds.level(forUsage: usage)
        let remaining = tree.candidates(at: level).filter { !killed.contains($0.id) }
        #expect(level == .none || KillPolicy.victim(among: remaining, at: level) == nil)
        // Nothing that is not a victim died.
        #expect(tree.processes.filter { !$0.alive }.allSatisfy { killed.contains($0.candidate.id) })
        #expect(before.count == tree.processes.count)
    }

    @Test func aPSITriggerKillsOneIdleExtensionEvenBelowLow() {
        let idle = { (id: String) in
            SimulatedTree.Process(candidate: KillCandidate(id: id, band: .idleExtension, priority: 0, lastUsed: Instant(nanoseconds: 0), residentBytes: Self.mebibyte))
        }
        let tree = SimulatedTree(processes: [idle("a"), idle("b")], baseline: 0)
        let kills = PressureEpisode.run(after: PressureTrigger(cause: .stall, time: tree.now()), thresholds: Self.thresholds, in: tree)
        #expect(kills.map(\.victim.id) == ["a"])
        #expect(kills.first?.level == .low)

        let unbudgeted = SimulatedTree(processes: [idle("a"), idle("b")], baseline: 0)
        let withoutBudget = PressureEpisode.run(after: PressureTrigger(cause: .stall, time: unbudgeted.now()), thresholds: nil, in: unbudgeted)
        #expect(withoutBudget.count == 1)
    }

    @Test func belowLowNothingIsKilled() {
        let tree = SimulatedTree(processes: [
            .init(candidate: KillCandidate(id: "a", band: .idleExtension, priority: 0, lastUsed: Instant(nanoseconds: 0), residentBytes: 40 * Self.mebibyte)),
        ], baseline: Self.thresholds.lowBytes - 40 * Self.mebibyte - 1)
        for cause in [PressureTrigger.Cause.armed, .usageThreshold, .reclaim, .memoryEvents] {
            #expect(PressureEpisode.run(after: PressureTrigger(cause: cause, time: tree.now()), thresholds: Self.thresholds, in: tree).isEmpty)
        }
    }

    @Test func aStuckVictimIsNotChosenAgainAndTheNextOneGoes() {
        let tree = SimulatedTree(processes: [
            .init(candidate: KillCandidate(id: "stuck", band: .idleExtension, priority: 0, lastUsed: Instant(nanoseconds: 0), residentBytes: 40 * Self.mebibyte), stuck: true),
            .init(candidate: KillCandidate(id: "next", band: .idleExtension, priority: 1, lastUsed: Instant(nanoseconds: 0), residentBytes: 40 * Self.mebibyte)),
        ], baseline: Self.thresholds.lowBytes - 50 * Self.mebibyte)
        let kills = PressureEpisode.run(after: PressureTrigger(cause: .usageThreshold, time: tree.now()), thresholds: Self.thresholds, in: tree)
        #expect(kills.map(\.victim.id) == ["stuck", "next"])
        #expect(kills.first?.empty == nil)
    }
}

extension PressureEpisode {
    /// An episode that starts with no warning given.
    static func run(after trigger: PressureTrigger, thresholds: PressureThresholds?, in tree: SimulatedTree) -> [PressureKill] {
        var warning = PressureWarning()
        return run(after: trigger, thresholds: thresholds, warning: &warning, in: tree)
    }
}

/// Warnings before kills: ``PressureEpisode`` with the ``PressureWarning`` kept across
/// episodes, over random trees whose baseline moves between episodes.
@Suite struct PressureWarningTests {
    static let mebibyte: UInt64 = 1 << 20
    static let thresholds = PressureThresholds(budget: 256 * mebibyte, low: 0.85, critical: 0.95)

    @Test func theDefaultWarnWatermarkIsBelowLow() {
        #expect(Self.thresholds.warnBytes == 192 * Self.mebibyte)
        #expect(PressureThresholds(budget: 1000, low: 0.5, critical: 0.9).warnBytes == 450)
        #expect(PressureThresholds(budget: 1000, warn: 0.6, low: 0.85, critical: 0.95).warnBytes == 600)
    }

    @Test(arguments: 1...1000 as ClosedRange<UInt64>)
    func extensionsAreWarnedOncePerCrossingAndBeforeAnyKillOfThatEpisode(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var warning = PressureWarning()
        var wasAbove = false
        for _ in 0..<8 {
            let tree = PressureEpisodeTests.randomTree(&random)
            tree.baseline = UInt64.random(in: 0...(240 * Self.mebibyte), using: &random)
            let first = tree.treeUsage()!
            let kills = PressureEpisode.run(after: PressureTrigger(cause: .usageThreshold, time: tree.now()),
                                            thresholds: Self.thresholds, warning: &warning, in: tree)
            let crossed = first >= Self.thresholds.warnBytes && !wasAbove
            // Warned exactly when this episode's first reading crossed warn upwards (kills
            // only lower the working set, so no later reading of the episode crosses it).
            #expect(tree.warnings == (crossed ? [first] : []), "seed \(seed)")
            if crossed, let kill = kills.first { #expect(kill.treeUsageBytes == first, "the warning came before the first kill") }
            wasAbove = tree.treeUsage()! >= Self.thresholds.warnBytes
            #expect(warning.isAboveWarn == wasAbove, "seed \(seed)")
        }
    }

    @Test func belowWarnNothingIsSaidAndAboveItOnlyOnce() {
        var warning = PressureWarning()
        let idle = SimulatedTree.Process(candidate: KillCandidate(
            id: "a", band: .idleExtension, priority: 0, lastUsed: Instant(nanoseconds: 0), residentBytes: Self.mebibyte))
        let tree = SimulatedTree(processes: [idle], baseline: 180 * Self.mebibyte)
        let episode = { PressureEpisode.run(after: PressureTrigger(cause: .usageThreshold, time: tree.now()),
                                            thresholds: Self.thresholds, warning: &warning, in: tree) }
        #expect(episode().isEmpty && tree.warnings.isEmpty)
        tree.baseline = 200 * Self.mebibyte
        #expect(episode().isEmpty && tree.warnings.count == 1, "past warn, below low: a warning, no kill")
        tree.baseline = 205 * Self.mebibyte
        _ = episode()
        #expect(tree.warnings.count == 1, "still past warn: no second warning")
        tree.baseline = 100 * Self.mebibyte
        _ = episode()
        tree.baseline = 200 * Self.mebibyte
        _ = episode()
        #expect(tree.warnings.count == 2, "a new crossing, a new warning")
    }
}
