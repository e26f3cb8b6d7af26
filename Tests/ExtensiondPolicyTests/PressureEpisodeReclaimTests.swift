import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// `memory.reclaim` before killing suspended extensions (``PressureEpisode/reclaimFirst``,
/// cgroup v2), in virtual time.
@Suite struct PressureEpisodeReclaimTests {
    static let mebibyte = PressureEpisodeStepTests.mebibyte
    static let thresholds = PressureEpisodeStepTests.thresholds

    static func suspended(_ id: String, mebibytes: UInt64, reclaimable: UInt64) -> EpisodeWorld.Process {
        .init(
            candidate: KillCandidate(id: id, band: .suspendedExtension, priority: 0, lastUsed: .at(0), residentBytes: mebibytes * mebibyte),
            exitDelay: .zero, reclaimable: reclaimable * mebibyte)
    }

    static func episode(_ world: EpisodeWorld, reclaimFirst: Bool) -> PressureEpisode {
        PressureEpisode(
            triggeredAt: world.now, byStall: false, thresholds: thresholds, warning: PressureWarning(),
            emptyTimeout: PressureEpisodeStepTests.timeout, reclaimFirst: reclaimFirst)
    }

    /// One suspended extension of 40 MiB, 20 MiB past `low` with it, of which the kernel
    /// can reclaim `reclaimable` MiB.
    static func oneFrozenWidget(reclaimable: UInt64) -> (world: EpisodeWorld, kills: [PressureEpisode.Kill], done: Bool) {
        var world = EpisodeWorld(
            processes: [Self.suspended("frozen", mebibytes: 40, reclaimable: reclaimable)],
            baseline: Self.thresholds.lowBytes - 20 * Self.mebibyte)
        var steps = Self.episode(world, reclaimFirst: true)
        let kills = world.run(&steps)
        return (world, kills, steps.isDone)
    }

    @Test func aReclaimThatBringsTheTreeUnderLowKillsNothing() {
        let (world, kills, done) = Self.oneFrozenWidget(reclaimable: 30)
        #expect(world.reclaimed == ["frozen"])
        #expect(kills.isEmpty && world.signalled.isEmpty)
        #expect(done)
    }

    @Test func aReclaimThatIsNotEnoughIsFollowedByTheKillOfTheSameVictim() {
        let (world, kills, _) = Self.oneFrozenWidget(reclaimable: 5)
        #expect(world.reclaimed == ["frozen"])
        #expect(kills.map(\.victim.id) == ["frozen"])
        #expect(kills.first?.victim.residentBytes == 35 * Self.mebibyte, "the kill saw the memory left after the reclaim")
    }

    @Test func withoutReclaimFirstOrForAnIdleVictimNothingIsReclaimed() {
        let idle = EpisodeWorld.Process(
            candidate: KillCandidate(id: "idle", band: .idleExtension, priority: 0, lastUsed: .at(0), residentBytes: 40 * Self.mebibyte),
            exitDelay: .zero, reclaimable: 40 * Self.mebibyte)
        for (processes, reclaimFirst) in [([Self.suspended("frozen", mebibytes: 40, reclaimable: 40)], false), ([idle], true)] {
            var world = EpisodeWorld(processes: processes, baseline: Self.thresholds.lowBytes - 20 * Self.mebibyte)
            var episode = Self.episode(world, reclaimFirst: reclaimFirst)
            let kills = world.run(&episode)
            #expect(world.reclaimed.isEmpty)
            #expect(kills.count == 1)
        }
    }

    /// Random trees: each suspended victim is reclaimed once, before its kill; nothing else
    /// is reclaimed; the episode ends where the one without reclaim would (under low, or
    /// nothing left to kill), never killing more.
    @Test(arguments: seeds(2000))
    func eachSuspendedVictimIsReclaimedOnceBeforeItsKill(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var world = PressureEpisodeStepTests.randomWorld(&random)
        for index in world.processes.indices {
            let resident = world.processes[index].candidate.residentBytes
            world.processes[index].reclaimable = [0, resident / 2, resident].randomElement(using: &random)!
        }
        var plain = world
        var episode = Self.episode(world, reclaimFirst: true)
        var plainEpisode = Self.episode(plain, reclaimFirst: false)
        let kills = world.run(&episode, staleEvents: Bool.random(using: &random))
        let plainKills = plain.run(&plainEpisode)

        #expect(Set(world.reclaimed).count == world.reclaimed.count, "reclaimed twice, seed \(seed)")
        let bands = Dictionary(uniqueKeysWithValues: world.processes.map { ($0.candidate.id, $0.candidate.band) })
        #expect(world.reclaimed.allSatisfy { bands[$0] == .suspendedExtension })
        for kill in kills where kill.victim.band == .suspendedExtension {
            let reclaimAt = world.actions.firstIndex { isReclaim($0, of: kill.victim.id) }
            let killAt = world.actions.firstIndex { if case .kill(let victim, _) = $0 { victim.id == kill.victim.id } else { false } }
            #expect(reclaimAt != nil && killAt != nil && reclaimAt! < killAt!, "seed \(seed)")
        }
        #expect(kills.count <= plainKills.count, "reclaim never costs a kill, seed \(seed)")
        #expect(episode.isDone && world.actions.last == .done)
        let level = Self.thresholds.level(forUsage: world.workingSet)
        let remaining = world.processes.filter { !$0.gone && $0.signalledAt == nil }.map(\.candidate)
        #expect(level == .none || KillPolicy.victim(among: remaining, at: level) == nil, "seed \(seed)")
    }

    private func isReclaim(_ action: PressureEpisode.Action, of id: String) -> Bool {
        if case .reclaim(let candidate) = action { candidate.id == id } else { false }
    }
}
