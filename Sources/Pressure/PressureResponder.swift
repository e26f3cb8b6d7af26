import Cgroup
import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import Processes

#if canImport(Glibc)
import Glibc
#endif

/// Acts on the pressure monitor's triggers: drives a ``PressureEpisode`` on the daemon's
/// real processes and cgroups, waiting for each victim through the loop
/// (``EmptyGroupWait``), and accounts for every kill in the event log. Nothing in an episode
/// blocks: hosts and control requests are answered while a victim exits.
final class PressureResponder {
    private let loop: EventLoop
    private let registry: ProcessRegistry
    /// Sends the kills: the supervisor is the only sender of SIGKILL.
    private let supervisor: ProcessSupervisor
    private let events: EventLog
    private let tree: CgroupTree
    private let workingSet: WorkingSetReader
    private let warnings: MemoryWarnings
    /// Whether the tree was past `pressure.warn` at the last reading, across episodes.
    private var warning = PressureWarning()
    /// The episode under way, what started it, and its watermarks.
    private var episode: (steps: PressureEpisode, cause: PressureTrigger.Cause, watermarks: PressureWatermarks?)?
    /// The wait for the current victim's cgroup.
    private var victimWait: EmptyGroupWait?
    /// Each victim's run (and so its cgroup), from its kill to the end of its wait.
    private var victims: [String: ProcessRun] = [:]
    /// Kills not recorded yet, by victim: whose cgroup did not empty within ``emptyTimeout``
    /// (until the run has ended), or whose `process_mrelease` has not answered, so that
    /// every kill event carries all four timestamps and what the release did.
    private var unrecorded: [String: (kill: PressureKill, watermarks: PressureWatermarks?, run: ProcessRun?)] = [:]
    /// The tree's memory at the last reading of the episode under way.
    private var lastReading: WorkingSet.Reading?
    /// When a reading last found the working set below the low watermark.
    private var lastBelowLow: MonotonicInstant?
    /// A reading not yet given to ``onReading``: that waits until the kill it decided is over
    /// (the next reading, or the episode's end), not to compete with the victim's exit.
    private var unobserved: (reading: WorkingSet.Reading, thresholds: PressureThresholds?)?
    /// Called on the loop when an episode is over, with its last reading of the tree (`nil`
    /// when none could be taken).
    var onEpisodeEnded: ((_ reading: WorkingSet.Reading?) -> Void)?
    /// Called with each reading of the tree and the watermarks it was read against.
    var onReading: ((_ reading: WorkingSet.Reading, _ thresholds: PressureThresholds?) -> Void)?
    /// Called with each victim once its kill is recorded.
    var onKilled: ((_ id: String) -> Void)?

    /// A kill waits at most this long for the victim's cgroup to empty.
    static let emptyTimeout: Duration = .milliseconds(100)
    /// `pressure.trim_wait`: how long `low` lets a trimmed extension exit before killing it.
    var trimWait = PressureSettings().trimWait

    /// When a process last served a request; the policy spares the most recently used.
    private let lastUsed: (SupervisedProcess) -> MonotonicInstant?

    init(
        loop: EventLoop, registry: ProcessRegistry, supervisor: ProcessSupervisor, events: EventLog, tree: CgroupTree, workingSet: WorkingSetReader,
        warnings: MemoryWarnings, lastUsed: @escaping (SupervisedProcess) -> MonotonicInstant?
    ) {
        self.loop = loop
        self.registry = registry
        self.warnings = warnings
        self.supervisor = supervisor
        self.events = events
        self.tree = tree
        self.workingSet = workingSet
        self.lastUsed = lastUsed
    }

    /// Starts an episode for `trigger` against `watermarks` (`nil` without `memory_budget`),
    /// counting the trigger's `reserve` as charged; `throttledAtLow`: the tree's v2
    /// `memory.high` is at `low`. One episode at a time: a trigger that comes during one is
    /// kept by ``PressureDetection`` for when it is over.
    func respond(to trigger: PressureTrigger, watermarks: PressureWatermarks?, throttledAtLow: Bool) {
        assert(episode == nil, "an episode started during another")
        guard episode == nil else { return }
        lastReading = nil
        let steps = PressureEpisode(
            triggeredAt: trigger.time.policyInstant, byStall: trigger.cause == .stall, byThrottle: trigger.throttled && !victimDying,
            thresholds: watermarks?.thresholds,
            warning: warning, emptyTimeout: Self.emptyTimeout, trimWait: trimWait, reserve: trigger.reserve,
            reclaimFirst: tree.root.canReclaim, throttledAtLow: throttledAtLow)
        episode = (steps, trigger.cause, watermarks)
        perform(steps.start())
    }

    /// A trigger came during the episode: a wait for a trimmed victim's exit ends, and the
    /// tree is read again (``PressureEpisode/Event/triggered(at:)``), so that a crossing of
    /// `critical` meanwhile kills at once instead of after `pressure.trim_wait`.
    func triggered() {
        guard episode != nil else { return }
        let actions = handle(.triggered(at: MonotonicInstant.current().policyInstant))
        guard !actions.isEmpty else { return }
        victimWait = nil
        perform(actions)
    }

    /// Whether a victim's memory may still be on its way out: its cgroup not seen empty, or
    /// its `process_mrelease` not answered. The kernel's throttle then is no evidence of
    /// pressure: it may be that memory still charged.
    private var victimDying: Bool { !victims.isEmpty || !unrecorded.isEmpty }

    /// Executes the episode's actions in order, feeding each answer back, until it waits
    /// for a victim or is over.
    private func perform(_ actions: [PressureEpisode.Action]) {
        var queue = actions[...]
        while let action = queue.popFirst(), let current = episode {
            let answer: PressureEpisode.Event?
            switch action {
            case .readWorkingSet:
                answer = .workingSet(treeUsage(current.watermarks))
            case let .warn(workingSet, watermark):
                warnings.warnTree(registry.ordered, workingSet: workingSet, watermark: watermark)
                answer = nil
            case let .trim(workingSet, watermark):
                trim(workingSet: workingSet, watermark: watermark)
                answer = nil
            case .listCandidates(let level):
                answer = .candidates(KillCandidates.killable(in: registry, at: level, lastUsed: lastUsed), at: MonotonicInstant.current().policyInstant)
            case .reclaim(let victim):
                reclaim(victim)
                answer = .reclaimed
            case let .kill(victim, level):
                answer = .signalled(at: kill(victim, reason: .pressureKill(at: level))?.policyInstant)
            case let .wait(victim, until):
                wait(for: victim, until: MonotonicInstant(notBefore: until))
                answer = nil
            case .record(let kill):
                finished(PressureKill(kill, cause: current.cause), watermarks: current.watermarks)
                answer = nil
            case .done:
                warning = current.steps.warning
                episode = nil
                observeReading()
                onEpisodeEnded?(lastReading)
                answer = nil
            }
            if let answer { queue += handle(answer) }
        }
    }

    /// Whether the last reading of the tree was at or past `pressure.warn`.
    var isPastWarn: Bool {
        (episode?.steps.warning ?? warning).isAboveWarn
    }

    /// Ends every suspended extension gracefully (thawed, `terminate`; killed after its
    /// `stop_timeout`, or by this episode at `low`, if it does not exit).
    private func trim(workingSet: UInt64, watermark: UInt64) {
        let suspended = registry.ordered.filter { $0.kind == .extension && $0.state == .suspended }
        guard !suspended.isEmpty else { return }
        for process in suspended { supervisor.stop(process, reason: .trim) }
        events.record(
            .memoryWarning, nil, reason: StopReason.trim.rawValue,
            "tree at \(Self.mebibytes(workingSet)) past pressure.warn \(Self.mebibytes(watermark)): ending \(suspended.count) suspended extensions (\(suspended.map(\.name).joined(separator: ", ")))"
        )
    }

    private func handle(_ event: PressureEpisode.Event) -> [PressureEpisode.Action] {
        guard var current = episode else { return [] }
        let actions = current.steps.handle(event)
        episode = current
        return actions
    }

    private func treeUsage(_ watermarks: PressureWatermarks?) -> UInt64? {
        guard let reading = workingSet.read() else { return nil }
        lastReading = reading
        if let low = watermarks?.thresholds.lowBytes, reading.workingSet < low { lastBelowLow = .current() }
        observeReading()
        unobserved = (reading, watermarks?.thresholds)
        return reading.workingSet
    }

    private func observeReading() {
        guard let (reading, thresholds) = unobserved else { return }
        unobserved = nil
        onReading?(reading, thresholds)
    }

    /// Asks the kernel for the suspended candidate's memory. Without swap or zram the
    /// kernel can take little (EAGAIN: less than asked), which is no error: the reading
    /// that follows says what it freed.
    private func reclaim(_ candidate: KillCandidate) {
        guard let group = registry[candidate.id]?.run?.group else { return }
        let before = (try? group.memoryUsage()) ?? candidate.residentBytes
        do {
            try group.reclaim(candidate.residentBytes)
        } catch CgroupError.systemCall(_, _, EAGAIN) {
            // Less than asked: the common answer.
        } catch {
            events.record(.error, candidate.id, "memory.reclaim: \(error)")
            return
        }
        let after = (try? group.memoryUsage()) ?? before
        events.record(.reclaim, candidate.id, "memory.reclaim under pressure: \(before >> 10) KiB → \(after >> 10) KiB")
    }

    /// SIGKILL to the victim's cgroup, then its memory released by this thread.
    private func kill(_ victim: KillCandidate, reason: StopReason) -> MonotonicInstant? {
        guard let process = registry[victim.id], let run = process.run else { return nil }
        // Its exit is handled later on this thread, with this reason; the kill event is
        // recorded by ``finished(_:watermarks:)`` with the kill's figures.
        let signalled = supervisor.kill(process, reason: reason, message: nil)
        victims[victim.id] = run
        return signalled
    }

    /// Waits for a killed victim's group, or for the group of one a trim asked to exit.
    private func wait(for victim: KillCandidate, until deadline: MonotonicInstant) {
        let run = victims[victim.id]
        guard let group = run?.group ?? registry[victim.id]?.run?.group else {
            return perform(handle(.emptied(at: MonotonicInstant.current().policyInstant)))
        }
        let wait = EmptyGroupWait(loop: loop, group: group, until: deadline) { [unowned self] emptied, at in
            self.victimWait = nil
            let event: PressureEpisode.Event = emptied ? .emptied(at: at.policyInstant) : .deadlinePassed(at: at.policyInstant)
            // An emptied group goes on with `process_mrelease`'s answer (it comes within the
            // same few milliseconds): the kill is on record before anything the episode frees room for.
            guard emptied, let run else { return self.perform(self.handle(event)) }
            run.whenMemoryReleased { [unowned self] in self.perform(self.handle(event)) }
        }
        // A group empty already ended the wait within `init`, and the episode went on from
        // there, perhaps to the next victim's wait: that one is kept, not this one.
        if !wait.isOver { victimWait = wait }
    }

    private func finished(_ finished: PressureKill, watermarks: PressureWatermarks?) {
        var kill = finished
        kill.lastBelowLow = lastBelowLow
        let id = kill.victim.id
        let run = victims.removeValue(forKey: id)
        onKilled?(id)
        // An earlier kill of the same id still waiting goes on record as it is.
        if let earlier = unrecorded.removeValue(forKey: id) { record(earlier.kill, watermarks: earlier.watermarks, run: earlier.run) }
        unrecorded[id] = (kill, watermarks, run)
        if let run { run.whenMemoryReleased { [unowned self] in self.recordIfComplete(id) } } else { recordIfComplete(id) }
    }

    /// Hook for every end of a run: a kill whose cgroup did not empty in time is over now.
    func runEnded(_ process: SupervisedProcess) {
        guard unrecorded[process.name] != nil else { return }
        if unrecorded[process.name]?.kill.empty == nil { unrecorded[process.name]?.kill.empty = .current() }
        recordIfComplete(process.name)
    }

    private func recordIfComplete(_ id: String) {
        guard let (kill, watermarks, run) = unrecorded[id], kill.empty != nil, run == nil || run?.memoryRelease != nil else { return }
        unrecorded[id] = nil
        record(kill, watermarks: watermarks, run: run)
    }

    private func record(_ kill: PressureKill, watermarks: PressureWatermarks?, run: ProcessRun?) {
        var record = KillRecord(
            band: "\(kill.victim.band)", triggerUs: kill.trigger.microseconds, decisionUs: kill.decision.microseconds,
            signalUs: kill.signal.microseconds, emptyUs: kill.empty?.microseconds)
        record.lastBelowLowUs = kill.lastBelowLow?.microseconds
        record.rssBytes = kill.victim.residentBytes
        record.growthBytes = kill.victim.growthBytes
        record.treeUsageBytes = kill.treeUsageBytes
        record.budgetBytes = watermarks?.budgetBytes
        record.psiSomeAvg10 = PressureStallAverages.read(PressureStallAverages.systemFile)?.someAverage10
        record.memoryRelease = run?.memoryRelease?.description
        let budget = watermarks.map { " of \(Self.mebibytes($0.budgetBytes))" } ?? ""
        events.record(
            .kill, kill.victim.id, reason: kill.reason.rawValue,
            "\(kill.level) memory pressure (\(kill.cause.map { "\($0.rawValue) trigger" } ?? "still, after the previous kill")), "
                + "tree at \(Self.mebibytes(kill.treeUsageBytes))\(budget): killed \(kill.victim.band) holding \(Self.mebibytes(kill.victim.residentBytes)) (grew \(Self.mebibytes(kill.victim.growthBytes)))",
            kill: record)
    }

    private static func mebibytes(_ bytes: UInt64) -> String {
        "\(bytes >> 20)M"
    }
}
