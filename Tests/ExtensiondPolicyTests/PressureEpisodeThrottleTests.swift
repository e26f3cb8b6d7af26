import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// ``PressureEpisode`` on a trigger that says the kernel throttled the tree at `low` (cgroup
/// v2 `memory.events` `high`): the working set within the re-check band counts as `low`.
@Suite struct PressureEpisodeThrottleTests {
    static let mebibyte: UInt64 = 1 << 20
    static let thresholds = PressureEpisodeStepTests.thresholds
    static let timeout = PressureEpisodeStepTests.timeout

    static func episode(byThrottle: Bool, at world: EpisodeWorld) -> PressureEpisode {
        PressureEpisode(
            triggeredAt: world.now, byStall: false, byThrottle: byThrottle, thresholds: thresholds, warning: PressureWarning(),
            emptyTimeout: timeout)
    }

    static func world(workingSet: UInt64) -> EpisodeWorld {
        let grower = KillCandidate(
            id: "grower", band: .idleExtension, priority: 0, lastUsed: .at(0), residentBytes: 60 * mebibyte, growthBytes: 56 * mebibyte)
        let idle = KillCandidate(id: "idle", band: .idleExtension, priority: 0, lastUsed: .at(0), residentBytes: 36 * mebibyte)
        return EpisodeWorld(
            processes: [.init(candidate: grower, exitDelay: .milliseconds(30)), .init(candidate: idle, exitDelay: .milliseconds(30))],
            baseline: workingSet - 96 * mebibyte)
    }

    /// The tree held 32 KiB under `low` by the kernel: the grower goes, and only it.
    @Test func aThrottledTreeJustUnderLowLosesItsGrower() {
        var world = Self.world(workingSet: Self.thresholds.lowBytes - 32 << 10)
        var episode = Self.episode(byThrottle: true, at: world)
        let kills = world.run(&episode)
        #expect(kills.map(\.victim.id) == ["grower"])
        #expect(kills.first?.level == .low)
        var unthrottled = Self.world(workingSet: Self.thresholds.lowBytes - 32 << 10)
        var plain = Self.episode(byThrottle: false, at: unthrottled)
        #expect(unthrottled.run(&plain).isEmpty, "without the kernel's word, under low is under low")
    }

    /// Below the band the kernel is dropping cache no process maps: nothing is killed.
    @Test func aThrottledTreeBelowTheBandKillsNothing() {
        var world = Self.world(workingSet: Self.thresholds.recheckBytes - 1)
        var episode = Self.episode(byThrottle: true, at: world)
        #expect(world.run(&episode).isEmpty)
        var atBand = Self.world(workingSet: Self.thresholds.recheckBytes)
        var edge = Self.episode(byThrottle: true, at: atBand)
        #expect(atBand.run(&edge).map(\.victim.id) == ["grower"])
    }

    /// Over random trees: a throttle trigger changes only the first decision, and only for a
    /// working set in the band; every kill is an idle or suspended extension at `low` or
    /// what the watermarks ask for, one victim at a time, never one twice.
    @Test(arguments: seeds(2000))
    func theThrottleMovesOnlyTheFirstDecisionInTheBand(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var world = PressureEpisodeStepTests.randomWorld(&random)
        let band = Self.thresholds.recheckBytes...Self.thresholds.lowBytes
        let edges: [UInt64] = [0, band.lowerBound - 1, band.lowerBound, band.upperBound - 1, band.upperBound]
        let held = world.workingSet - world.baseline
        let target = Bool.random(using: &random) ? edges.randomElement(using: &random)! : UInt64.random(in: 0...(260 * Self.mebibyte), using: &random)
        world.baseline = target > held ? target - held : 0
        let first = world.workingSet
        var episode = Self.episode(byThrottle: true, at: world)
        let kills = world.run(&episode)

        let inBand = first >= Self.thresholds.recheckBytes
        let expected = max(Self.thresholds.level(forUsage: first), inBand ? .low : .none)
        let killable = world.processes.map(\.candidate).filter { !world.vanishing.contains($0.id) && $0.band.isKillable(at: expected) }
        if expected == .none { #expect(kills.isEmpty, "seed \(seed)") }
        if let kill = kills.first, world.vanishing.isEmpty {
            #expect(kill.level == expected && kill.treeUsageBytes == first, "seed \(seed)")
        }
        if expected > .none, world.vanishing.isEmpty, !killable.isEmpty { #expect(!kills.isEmpty, "seed \(seed)") }
        var killed = Set<String>()
        for kill in kills {
            #expect(kill.victim.band.isKillable(at: kill.level) && kill.victim.band != .host)
            #expect(killed.insert(kill.victim.id).inserted, "a victim chosen twice")
            if !kill.isFirst { #expect(kill.level == Self.thresholds.level(forUsage: kill.treeUsageBytes)) }
        }
    }
}
