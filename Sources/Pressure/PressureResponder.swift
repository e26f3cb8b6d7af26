import Cgroup
import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensiondPolicy
import LinuxProcess
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
    private let warnings: MemoryWarnings
    /// Whether the tree was past `pressure.warn` at the last reading, across episodes.
    private var warning = PressureWarning()
    /// The episode under way, what started it, and its watermarks.
    private var episode: (steps: PressureEpisode, cause: PressureTrigger.Cause, watermarks: PressureWatermarks?)?
    /// The wait for the current victim's cgroup.
    private var victimWait: EmptyGroupWait?
    /// Each victim's cgroup and what `process_mrelease` did, from its kill to its record.
    private var victims: [String: (group: ControlGroup, release: MemoryRelease?)] = [:]
    /// Kills whose cgroup did not empty within ``emptyTimeout``, by victim: recorded once
    /// the run has ended, so that every kill event carries all four timestamps.
    private var unfinished: [String: (kill: PressureKill, watermarks: PressureWatermarks?)] = [:]
    /// The tree's memory at the last reading of an episode: the usage thresholds follow
    /// its unmapped cache, and re-checks its working set.
    private(set) var lastReading: WorkingSet.Reading?
    /// When a reading last found the working set below the low watermark.
    private var lastBelowLow: MonotonicInstant?
    /// Called on the loop when an episode is over.
    var onEpisodeEnded: (() -> Void)?
    /// Called with each reading of the tree and the watermarks it was read against.
    var onReading: ((_ reading: WorkingSet.Reading, _ thresholds: PressureThresholds?) -> Void)?
    /// Called with each victim once its kill is recorded.
    var onKilled: ((_ id: String) -> Void)?

    /// A kill waits at most this long for the victim's cgroup to empty.
    static let emptyTimeout: Duration = .milliseconds(100)

    /// When a process last served a request; the policy spares the most recently used.
    private let lastUsed: (SupervisedProcess) -> MonotonicInstant?

    init(
        loop: EventLoop, registry: ProcessRegistry, supervisor: ProcessSupervisor, events: EventLog, tree: CgroupTree, warnings: MemoryWarnings,
        lastUsed: @escaping (SupervisedProcess) -> MonotonicInstant?
    ) {
        self.loop = loop
        self.registry = registry
        self.warnings = warnings
        self.supervisor = supervisor
        self.events = events
        self.tree = tree
        self.lastUsed = lastUsed
    }

    /// Whether an episode is under way (waiting for a victim, most of the time).
    var isResponding: Bool { episode != nil }

    /// Starts an episode for `trigger` against `watermarks` (`nil` without `memory_budget`),
    /// counting `reserve` bytes about to be taken by a launch as charged; returns whether it
    /// started. A trigger during an episode changes nothing: the episode reads the tree
    /// again once its victim is gone.
    @discardableResult
    func respond(to trigger: PressureTrigger, watermarks: PressureWatermarks?, reserve: UInt64 = 0) -> Bool {
        guard episode == nil else { return false }
        let steps = PressureEpisode(
            triggeredAt: trigger.time.policyInstant, byStall: trigger.cause == .stall, thresholds: watermarks?.thresholds,
            warning: warning, emptyTimeout: Self.emptyTimeout, reserve: reserve, reclaimFirst: tree.root.canReclaim)
        episode = (steps, trigger.cause, watermarks)
        perform(steps.start())
        return true
    }

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
                onEpisodeEnded?()
                answer = nil
            }
            if let answer { queue += handle(answer) }
        }
    }

    private func handle(_ event: PressureEpisode.Event) -> [PressureEpisode.Action] {
        guard var current = episode else { return [] }
        let actions = current.steps.handle(event)
        episode = current
        return actions
    }

    private func treeUsage(_ watermarks: PressureWatermarks?) -> UInt64? {
        guard let reading = WorkingSet.read(tree.root) else { return nil }
        lastReading = reading
        if let low = watermarks?.thresholds.lowBytes, reading.workingSet < low { lastBelowLow = .current() }
        onReading?(reading, watermarks?.thresholds)
        return reading.workingSet
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
        victims[victim.id] = (run.group, run.memoryRelease)
        return signalled
    }

    private func wait(for victim: KillCandidate, until deadline: MonotonicInstant) {
        guard let group = victims[victim.id]?.group else {
            return perform(handle(.emptied(at: MonotonicInstant.current().policyInstant)))
        }
        let wait = EmptyGroupWait(loop: loop, group: group, until: deadline) { [unowned self] emptied, at in
            self.victimWait = nil
            self.perform(self.handle(emptied ? .emptied(at: at.policyInstant) : .deadlinePassed(at: at.policyInstant)))
        }
        // A group empty already ended the wait within `init`, and the episode went on from
        // there, perhaps to the next victim's wait: that one is kept, not this one.
        if !wait.isOver { victimWait = wait }
    }

    private func finished(_ finished: PressureKill, watermarks: PressureWatermarks?) {
        var kill = finished
        kill.lastBelowLow = lastBelowLow
        kill.memoryRelease = victims.removeValue(forKey: kill.victim.id)?.release
        onKilled?(kill.victim.id)
        if kill.empty == nil {
            unfinished[kill.victim.id] = (kill, watermarks)
        } else {
            record(kill, watermarks: watermarks)
        }
    }

    /// Hook for every end of a run: records a kill that was waiting for its cgroup.
    func runEnded(_ process: SupervisedProcess) {
        guard let (unfinishedKill, watermarks) = unfinished.removeValue(forKey: process.name) else { return }
        var kill = unfinishedKill
        kill.empty = .current()
        record(kill, watermarks: watermarks)
    }

    private func record(_ kill: PressureKill, watermarks: PressureWatermarks?) {
        var record = KillRecord(
            band: "\(kill.victim.band)", triggerUs: kill.trigger.microseconds, decisionUs: kill.decision.microseconds,
            signalUs: kill.signal.microseconds, emptyUs: kill.empty?.microseconds)
        record.lastBelowLowUs = kill.lastBelowLow?.microseconds
        record.rssBytes = kill.victim.residentBytes
        record.growthBytes = kill.victim.growthBytes
        record.treeUsageBytes = kill.treeUsageBytes
        record.budgetBytes = watermarks?.budgetBytes
        record.psiSomeAvg10 = PressureStallAverages.read(PressureStallAverages.systemFile)?.someAverage10
        record.memoryRelease = kill.memoryRelease?.description
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
