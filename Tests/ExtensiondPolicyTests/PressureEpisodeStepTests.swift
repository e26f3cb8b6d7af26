import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// A memory tree in virtual time driving a ``PressureEpisode``: processes hold memory
/// until killed; a killed one's group empties after a delay, or never (stuck).
struct EpisodeWorld {
    struct Process {
        var candidate: KillCandidate
        /// How long after SIGKILL its group is empty; `nil`: never (uninterruptible sleep).
        var exitDelay: Duration?
        var signalledAt: Instant?
        var gone = false
        /// What `memory.reclaim` takes from it (to swap or zram).
        var reclaimable: UInt64 = 0
    }

    var processes: [Process]
    /// Memory charged to the tree outside the processes (the daemon, page cache).
    var baseline: UInt64
    var now = Instant.at(1)
    /// A process that is gone before the kill reaches it (the signal cannot be sent).
    var vanishing: Set<String> = []
    private(set) var actions: [PressureEpisode.Action] = []
    private(set) var signalled: [String] = []
    private(set) var reclaimed: [String] = []
    private(set) var warnings: [UInt64] = []
    /// The working set of each reading, and of each trim, in order.
    private(set) var readings: [UInt64] = []
    private(set) var trims: [UInt64] = []
    /// The instants at which each wait began and ended, in order.
    private(set) var waits: [(victim: String, from: Instant, until: Instant, ended: Instant)] = []

    var workingSet: UInt64 {
        baseline + processes.filter { !$0.gone }.reduce(0) { $0 + $1.candidate.residentBytes }
    }

    /// Runs `episode` to its end, executing each action as the daemon does; every step
    /// advances virtual time by `step`. `staleEvents` sends an unasked event before each
    /// answer, which must change nothing.
    mutating func run(_ episode: inout PressureEpisode, step: Duration = .microseconds(5), staleEvents: Bool = false) -> [PressureEpisode.Kill] {
        var queue = episode.start()
        var kills: [PressureEpisode.Kill] = []
        var turns = 0
        while !queue.isEmpty {
            turns += 1
            precondition(turns < 10_000, "the episode did not end")
            let action = queue.removeFirst()
            actions.append(action)
            now = now + step
            // A signal report is an answer only to a kill.
            if staleEvents, !isKill(action) {
                precondition(episode.handle(.signalled(at: now)).isEmpty, "a stale event acted")
            }
            switch action {
            case .readWorkingSet:
                readings.append(workingSet)
                queue += episode.handle(.workingSet(workingSet))
            case let .warn(workingSet, _):
                warnings.append(workingSet)
            case let .trim(workingSet, _):
                // Graceful ends take longer than an episode's steps: the trimmed keep their memory here.
                trims.append(workingSet)
            case .listCandidates(let level):
                let candidates = processes.filter { !$0.gone && $0.signalledAt == nil }.map(\.candidate).filter { $0.band.isKillable(at: level) }
                queue += episode.handle(.candidates(candidates, at: now))
            case .reclaim(let candidate):
                reclaimed.append(candidate.id)
                let index = processes.firstIndex { $0.candidate.id == candidate.id }!
                let taken = min(processes[index].reclaimable, processes[index].candidate.residentBytes)
                processes[index].candidate.residentBytes -= taken
                processes[index].reclaimable -= taken
                queue += episode.handle(.reclaimed)
            case .kill(let victim, _):
                signalled.append(victim.id)
                let index = processes.firstIndex { $0.candidate.id == victim.id }!
                if vanishing.contains(victim.id) {
                    processes[index].gone = true
                    queue += episode.handle(.signalled(at: nil))
                } else {
                    processes[index].signalledAt = now
                    queue += episode.handle(.signalled(at: now))
                }
            case let .wait(victim, deadline):
                let index = processes.firstIndex { $0.candidate.id == victim.id }!
                let from = now
                if let delay = processes[index].exitDelay, from + delay < deadline {
                    now = from + delay
                    processes[index].gone = true
                    queue += episode.handle(.emptied(at: now))
                } else {
                    now = deadline
                    queue += episode.handle(.deadlinePassed(at: now))
                }
                waits.append((victim.id, from, deadline, now))
            case .record(let kill):
                kills.append(kill)
            case .done:
                precondition(queue.isEmpty, "actions after done")
            }
        }
        return kills
    }

    private func isKill(_ action: PressureEpisode.Action) -> Bool {
        if case .kill = action { true } else { false }
    }
}

/// ``PressureEpisode`` over thousands of random process tables in virtual time.
@Suite struct PressureEpisodeStepTests {
    static let mebibyte: UInt64 = 1 << 20
    static let thresholds = PressureThresholds(budget: 256 * mebibyte, low: 0.85, critical: 0.95)
    static let timeout = Duration.milliseconds(100)

    static func randomWorld(_ random: inout SeededRandom) -> EpisodeWorld {
        // Extremes included: no memory, a process as large as the budget, an exit right
        // at the deadline, no exit at all.
        let sizes: [UInt64] = [0, 1, mebibyte, 40 * mebibyte, 256 * mebibyte]
        let delays: [Duration?] = [.zero, .microseconds(1), .milliseconds(3), timeout - .nanoseconds(1), timeout, nil]
        let processes = (0..<Int.random(in: 0...12, using: &random)).map { index in
            EpisodeWorld.Process(
                candidate: KillCandidate(
                    id: "p\(index)", band: KillBand.allCases.randomElement(using: &random)!,
                    priority: Int.random(in: -2...2, using: &random),
                    lastUsed: .at(Int64.random(in: 0...5, using: &random)),
                    residentBytes: Bool.random(using: &random) ? sizes.randomElement(using: &random)! : UInt64.random(in: 0...(60 * mebibyte), using: &random),
                    growthBytes: Bool.random(using: &random) ? 0 : 10 * mebibyte
                ),
                exitDelay: delays.randomElement(using: &random)!
            )
        }
        let baselines: [UInt64] = [0, thresholds.lowBytes - 1, thresholds.lowBytes, thresholds.criticalBytes, .max / 2]
        let baseline = Bool.random(using: &random) ? baselines.randomElement(using: &random)! : UInt64.random(in: 0...(200 * mebibyte), using: &random)
        var world = EpisodeWorld(processes: processes, baseline: baseline)
        if let vanishing = processes.randomElement(using: &random), Int.random(in: 0..<4, using: &random) == 0 {
            world.vanishing = [vanishing.candidate.id]
        }
        return world
    }

    @Test(arguments: seeds(3000))
    func killsOnlyWhatTheWatermarksAskForOneVictimAtATime(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var world = Self.randomWorld(&random)
        let start = world.now
        var episode = PressureEpisode(triggeredAt: start, byStall: false, thresholds: Self.thresholds, warning: PressureWarning(), emptyTimeout: Self.timeout)
        let kills = world.run(&episode, staleEvents: Bool.random(using: &random))

        var killed = Set<String>()
        for kill in kills {
            #expect(kill.treeUsageBytes >= Self.thresholds.lowBytes)
            #expect(kill.level == Self.thresholds.level(forUsage: kill.treeUsageBytes))
            #expect(kill.victim.band != .host && kill.victim.band.isKillable(at: kill.level))
            #expect(killed.insert(kill.victim.id).inserted, "a victim chosen twice")
            #expect(kill.trigger <= kill.decision && kill.decision <= kill.signal)
            if let empty = kill.empty { #expect(kill.signal <= empty && empty < kill.signal + Self.timeout) }
        }
        #expect(kills.first.map { $0.isFirst && $0.trigger == start } ?? true)
        #expect(kills.dropFirst().allSatisfy { !$0.isFirst })
        // Each follow-up decision was triggered by the end of the previous wait.
        let waited = kills.filter { !world.vanishing.contains($0.victim.id) }
        for (wait, next) in zip(world.waits, waited.dropFirst()) {
            #expect(next.trigger == wait.ended)
        }
        // One victim at a time: each wait ends before the next decision, at its deadline
        // at the latest, and the deadline is the timeout after the signal.
        for (kill, wait) in zip(waited, world.waits) {
            #expect(wait.victim == kill.victim.id && wait.until == kill.signal + Self.timeout && wait.ended <= wait.until)
            #expect((kill.empty == nil) == (wait.ended == wait.until))
        }
        // Every signal but one that found its victim gone became a kill, in order.
        #expect(world.signalled.filter { !world.vanishing.contains($0) } == kills.map(\.victim.id))
        #expect(episode.isDone && world.actions.last == .done)

        // It stopped because the working set fell under low, or nothing more may be killed.
        let level = Self.thresholds.level(forUsage: world.workingSet)
        let remaining = world.processes.filter { !$0.gone && $0.signalledAt == nil }.map(\.candidate)
        #expect(level == .none || KillPolicy.victim(among: remaining, at: level) == nil, "seed \(seed)")
        #expect(episode.lastWorkingSet == world.workingSet)
    }

    @Test func aStallKillsOneIdleOrSuspendedExtensionEvenBelowLowOrWithoutABudget() {
        for thresholds in [Self.thresholds, nil] {
            var world = EpisodeWorld(
                processes: [
                    .init(
                        candidate: KillCandidate(id: "idle", band: .idleExtension, priority: 0, lastUsed: .at(0), residentBytes: Self.mebibyte),
                        exitDelay: .zero),
                    .init(
                        candidate: KillCandidate(id: "frozen", band: .suspendedExtension, priority: 0, lastUsed: .at(0), residentBytes: Self.mebibyte),
                        exitDelay: .zero),
                ], baseline: 0)
            var episode = PressureEpisode(triggeredAt: world.now, byStall: true, thresholds: thresholds, warning: PressureWarning(), emptyTimeout: Self.timeout)
            let kills = world.run(&episode)
            #expect(kills.map(\.victim.id) == ["frozen"])
            #expect(kills.first?.level == .low)
        }
    }

    @Test func aStuckVictimIsWaitedForUntilItsDeadlineThenTheNextOneGoes() {
        var world = EpisodeWorld(
            processes: [
                .init(
                    candidate: KillCandidate(id: "stuck", band: .idleExtension, priority: 0, lastUsed: .at(0), residentBytes: 40 * Self.mebibyte),
                    exitDelay: nil),
                .init(
                    candidate: KillCandidate(id: "next", band: .idleExtension, priority: 1, lastUsed: .at(0), residentBytes: 40 * Self.mebibyte),
                    exitDelay: .milliseconds(2)),
            ], baseline: Self.thresholds.lowBytes - 50 * Self.mebibyte)
        var episode = PressureEpisode(
            triggeredAt: world.now, byStall: false, thresholds: Self.thresholds, warning: PressureWarning(), emptyTimeout: Self.timeout)
        let kills = world.run(&episode)
        #expect(kills.map(\.victim.id) == ["stuck", "next"])
        #expect(kills[0].empty == nil && kills[1].empty != nil)
        #expect(kills[1].trigger == kills[0].signal + Self.timeout)
    }

    @Test func anAnswerNobodyAskedForChangesNothing() {
        var episode = PressureEpisode(triggeredAt: .at(0), byStall: false, thresholds: Self.thresholds, warning: PressureWarning(), emptyTimeout: Self.timeout)
        #expect(episode.handle(.emptied(at: .at(1))).isEmpty)
        #expect(episode.handle(.signalled(at: .at(1))).isEmpty)
        #expect(episode.handle(.candidates([], at: .at(1))).isEmpty)
        #expect(episode.handle(.workingSet(nil)) == [.done])
        #expect(episode.handle(.workingSet(.max)).isEmpty, "nothing after done")
    }

    @Test func timesAtTheEndsOfTheClockSaturate() {
        var world = EpisodeWorld(
            processes: [
                .init(
                    candidate: KillCandidate(id: "a", band: .idleExtension, priority: .min, lastUsed: Instant(nanoseconds: .max), residentBytes: .max / 2),
                    exitDelay: nil)
            ], baseline: 0)
        world.now = Instant(nanoseconds: .max - 1_000)
        var episode = PressureEpisode(
            triggeredAt: world.now, byStall: false, thresholds: Self.thresholds, warning: PressureWarning(), emptyTimeout: .seconds(Int64.max))
        let kills = world.run(&episode)
        #expect(kills.map(\.victim.id) == ["a"])
        #expect(world.waits.first?.until == Instant(nanoseconds: .max))
    }

    /// Warnings across episodes whose baseline moves between them: once per upward crossing
    /// of `warn`, on the reading that crossed. When that reading decides a kill, the warning
    /// waits until the kill is over (after the wait for its victim, before its record and the
    /// next reading), never between the reading and the signal or during the victim's exit;
    /// otherwise it comes right after the decision that killed nobody.
    @Test(arguments: seeds(500))
    func extensionsAreWarnedOncePerCrossingAndNeverBeforeTheKillDecidedWithIt(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var warning = PressureWarning()
        var wasAbove = false
        for _ in 0..<8 {
            var world = Self.randomWorld(&random)
            world.vanishing = []
            world.baseline = UInt64.random(in: 0...(240 * Self.mebibyte), using: &random)
            let first = world.workingSet
            var episode = PressureEpisode(triggeredAt: world.now, byStall: false, thresholds: Self.thresholds, warning: warning, emptyTimeout: Self.timeout)
            let kills = world.run(&episode)
            warning = episode.warning
            let crossed = first >= Self.thresholds.warnBytes && !wasAbove
            #expect(world.warnings == (crossed ? [first] : []), "seed \(seed)")
            if crossed, let warnIndex = world.actions.firstIndex(where: { if case .warn = $0 { true } else { false } }) {
                let actions = world.actions
                let nextReading = actions.indices.dropFirst().first { actions[$0] == .readWorkingSet } ?? actions.endIndex
                let kill = actions.firstIndex { if case .kill = $0 { true } else { false } }
                let listing = actions.firstIndex { if case .listCandidates = $0 { true } else { false } }
                #expect(warnIndex < nextReading, "warned in the first reading's turn, seed \(seed)")
                if let kill, kill < nextReading {
                    let between = actions[(kill + 1)..<warnIndex]
                    #expect(between.allSatisfy { if case .wait = $0 { true } else { false } }, "after the kill's wait, seed \(seed)")
                    let next = actions[warnIndex + 1]
                    let recorded = if case .record = next { true } else { false }
                    #expect(recorded || next == .readWorkingSet, "before its record or the next reading, seed \(seed)")
                } else if let listing, listing < nextReading {
                    #expect(warnIndex == listing + 1, "right after a decision that killed nobody, seed \(seed)")
                }
            }
            wasAbove = episode.lastWorkingSet.map { $0 >= Self.thresholds.warnBytes } ?? wasAbove
            #expect(warning.isAboveWarn == wasAbove, "seed \(seed)")
        }
    }
}

extension PressureEpisodeStepTests {
    /// A jump from below `warn` past `low` in one reading: the victim is signalled first and
    /// waited for, then the extensions are warned, then the kill is recorded.
    @Test func aJumpPastLowKillsTheVictimBeforeTheWarning() {
        var world = EpisodeWorld(
            processes: [
                .init(
                    candidate: KillCandidate(id: "idle", band: .idleExtension, priority: 0, lastUsed: .at(0), residentBytes: 40 * Self.mebibyte),
                    exitDelay: .milliseconds(1))
            ], baseline: Self.thresholds.lowBytes - 20 * Self.mebibyte)
        var episode = PressureEpisode(
            triggeredAt: world.now, byStall: false, thresholds: Self.thresholds, warning: PressureWarning(), emptyTimeout: Self.timeout)
        let kills = world.run(&episode)
        let first = Self.thresholds.lowBytes + 20 * Self.mebibyte
        #expect(kills.map(\.victim.id) == ["idle"])
        #expect(
            Array(world.actions.prefix(7)) == [
                .readWorkingSet, .trim(workingSet: first, watermark: Self.thresholds.warnBytes), .listCandidates(.low),
                .kill(world.processes[0].candidate, level: .low), .wait(world.processes[0].candidate, until: kills[0].signal + Self.timeout),
                .warn(workingSet: first, watermark: Self.thresholds.warnBytes), .record(kills[0]),
            ])
        #expect(world.warnings == [first])
    }

    /// Past `warn` and under `low`, or past `low` with nothing to kill: the warning is not
    /// held back (under `low` in its old place, before the trim).
    @Test func withoutAKillTheWarningIsNotHeldBack() {
        let warn = Self.thresholds.warnBytes
        let low = Self.thresholds.lowBytes
        let cases: [(UInt64, [PressureEpisode.Action])] = [
            (warn, [.readWorkingSet, .warn(workingSet: warn, watermark: warn), .trim(workingSet: warn, watermark: warn), .done]),
            (low, [.readWorkingSet, .trim(workingSet: low, watermark: warn), .listCandidates(.low), .warn(workingSet: low, watermark: warn), .done]),
        ]
        for (baseline, expected) in cases {
            var world = EpisodeWorld(
                processes: [
                    .init(candidate: KillCandidate(id: "p", band: .activeExtension, priority: 0, lastUsed: .at(0), residentBytes: 0), exitDelay: .zero)
                ],
                baseline: baseline)
            var episode = PressureEpisode(
                triggeredAt: world.now, byStall: false, thresholds: Self.thresholds, warning: PressureWarning(), emptyTimeout: Self.timeout)
            #expect(world.run(&episode).isEmpty)
            #expect(world.actions == expected)
        }
    }
}

/// Trimming at `warn` (``PressureEpisode/Action/trim(workingSet:watermark:)``) in virtual time.
@Suite struct PressureEpisodeTrimTests {
    static let thresholds = PressureEpisodeStepTests.thresholds

    /// Over random trees, with baselines at and around each watermark: every reading at or
    /// past `warn` trims once, before the kill decided on it (a jump past `low` still kills
    /// in the same turn), and a reading below `warn` never trims.
    @Test(arguments: seeds(2000))
    func everyReadingPastWarnTrimsOnceBeforeItsKillDecision(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var world = PressureEpisodeStepTests.randomWorld(&random)
        if Bool.random(using: &random) {
            let marks = [Self.thresholds.warnBytes - 1, Self.thresholds.warnBytes, Self.thresholds.lowBytes - 1, Self.thresholds.lowBytes]
            world.baseline = marks.randomElement(using: &random)!
        }
        var episode = PressureEpisode(
            triggeredAt: world.now, byStall: Bool.random(using: &random), thresholds: Self.thresholds, warning: PressureWarning(),
            emptyTimeout: PressureEpisodeStepTests.timeout)
        _ = world.run(&episode, staleEvents: Bool.random(using: &random))

        #expect(world.trims == world.readings.filter { $0 >= Self.thresholds.warnBytes }, "seed \(seed)")
        var readings = world.readings[...]
        var reading: UInt64 = 0
        var trims = 0
        for action in world.actions {
            switch action {
            case .readWorkingSet:
                reading = readings.popFirst() ?? 0
                trims = 0
            case .trim(let workingSet, let watermark):
                trims += 1
                #expect(watermark == Self.thresholds.warnBytes)
                #expect(workingSet >= watermark)
            case .listCandidates, .kill:
                #expect(trims == (reading >= Self.thresholds.warnBytes ? 1 : 0), "seed \(seed)")
            default: break
            }
            #expect(trims <= 1, "seed \(seed)")
        }
    }

    @Test func aReadingAtWarnTrimsAndKillsNothingAndOneAtLowTrimsThenKills() {
        let frozen = EpisodeWorld.Process(
            candidate: KillCandidate(id: "frozen", band: .suspendedExtension, priority: 0, lastUsed: .at(0), residentBytes: 10 << 20),
            exitDelay: .zero)
        for (baseline, killed) in [(Self.thresholds.warnBytes - (10 << 20), [String]()), (Self.thresholds.lowBytes, ["frozen"])] {
            var world = EpisodeWorld(processes: [frozen], baseline: baseline)
            var episode = PressureEpisode(
                triggeredAt: world.now, byStall: false, thresholds: Self.thresholds, warning: PressureWarning(), emptyTimeout: PressureEpisodeStepTests.timeout)
            let kills = world.run(&episode)
            // After the kill the tree, still past `warn`, is read and trimmed again.
            #expect(world.trims == [baseline + (10 << 20)] + (killed.isEmpty ? [] : [baseline]))
            #expect(kills.map(\.victim.id) == killed)
            let trimAt = world.actions.firstIndex { if case .trim = $0 { true } else { false } }
            let killAt = world.actions.firstIndex { if case .kill = $0 { true } else { false } }
            if let killAt { #expect(trimAt! < killAt) }
        }
    }

    @Test func belowWarnNothingIsTrimmed() {
        var world = EpisodeWorld(processes: [], baseline: Self.thresholds.warnBytes - 1)
        var episode = PressureEpisode(
            triggeredAt: world.now, byStall: true, thresholds: Self.thresholds, warning: PressureWarning(), emptyTimeout: PressureEpisodeStepTests.timeout)
        _ = world.run(&episode)
        #expect(world.trims.isEmpty)
    }
}

/// A `low` victim that a trim asked to exit before the episode is waited for, up to
/// ``PressureEpisode/trimWait`` after that request (here ``PressureEpisode/emptyTimeout``,
/// its value when none is given), and killed only if still there.
@Suite struct PressureEpisodeExitWaitTests {
    static let thresholds = PressureEpisodeStepTests.thresholds
    static let timeout = PressureEpisodeStepTests.timeout
    static let start = Instant.at(100)
    /// Asked to exit 50 ms before the episode's trigger.
    static let asked = start - .milliseconds(50)

    static func run(
        exitDelay: Duration?, askedAt: Instant?, baseline: UInt64, throttledAtLow: Bool = false
    ) -> (world: EpisodeWorld, kills: [PressureEpisode.Kill]) {
        let trimmed = EpisodeWorld.Process(
            candidate: KillCandidate(
                id: "trimmed", band: .suspendedExtension, priority: 0, lastUsed: .at(0), residentBytes: 20 << 20, exitAskedAt: askedAt),
            exitDelay: exitDelay)
        var world = EpisodeWorld(processes: [trimmed], baseline: baseline)
        world.now = start
        var episode = PressureEpisode(
            triggeredAt: world.now, byStall: false, thresholds: thresholds, warning: PressureWarning(), emptyTimeout: timeout,
            throttledAtLow: throttledAtLow)
        let kills = world.run(&episode)
        return (world, kills)
    }

    @Test func oneThatExitsWithinTheBoundIsNotKilled() {
        let (world, kills) = Self.run(exitDelay: .milliseconds(30), askedAt: Self.asked, baseline: Self.thresholds.lowBytes)
        #expect(kills.isEmpty && world.signalled.isEmpty)
        #expect(world.waits.map(\.victim) == ["trimmed"])
        #expect(world.waits.first?.until == Self.asked + Self.timeout, "the bound counts from the request to exit")
    }

    @Test func oneThatDoesNotExitIsKilledAtTheBound() {
        let (world, kills) = Self.run(exitDelay: nil, askedAt: Self.asked, baseline: Self.thresholds.lowBytes)
        #expect(kills.map(\.victim.id) == ["trimmed"])
        #expect(world.waits.first?.ended == Self.asked + Self.timeout, "killed at the bound, not later")
    }

    /// Asked during this episode (by its own first reading) on a tree not throttled at
    /// `low` (v1): waited for as well.
    @Test func oneAskedDuringTheEpisodeIsWaitedForUnthrottled() {
        let askedAt = Self.start + .nanoseconds(1)
        let (world, kills) = Self.run(exitDelay: .milliseconds(30), askedAt: askedAt, baseline: Self.thresholds.lowBytes)
        #expect(kills.isEmpty && world.signalled.isEmpty)
        #expect(world.waits.map(\.until) == [askedAt + Self.timeout])
    }

    /// Killed at once: asked too long ago, not asked, at `critical`, or asked during this
    /// episode on a tree throttled at `low` (v2).
    @Test func otherwiseTheKillIsNotDelayed() {
        let cases: [(Instant?, UInt64, Bool)] = [
            (Self.start - Self.timeout, Self.thresholds.lowBytes, false), (Self.start + .nanoseconds(1), Self.thresholds.lowBytes, true),
            (Self.start, Self.thresholds.lowBytes, true), (nil, Self.thresholds.lowBytes, false), (Self.asked, Self.thresholds.criticalBytes, false),
            (Self.start + .nanoseconds(1), Self.thresholds.criticalBytes, false),
        ]
        for (askedAt, baseline, throttled) in cases {
            let (world, kills) = Self.run(exitDelay: .milliseconds(30), askedAt: askedAt, baseline: baseline, throttledAtLow: throttled)
            #expect(kills.map(\.victim.id) == ["trimmed"], "asked at \(String(describing: askedAt)), baseline \(baseline)")
            #expect(world.waits.count == 1 && world.signalled == ["trimmed"], "one wait: the kill's")
            let killAt = world.actions.firstIndex { if case .kill = $0 { true } else { false } }
            let waitAt = world.actions.firstIndex { if case .wait = $0 { true } else { false } }
            #expect(killAt != nil && waitAt != nil && killAt! < waitAt!, "no wait before the kill")
        }
    }
}
