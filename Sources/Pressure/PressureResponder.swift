import Cgroup
import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensiondPolicy
import Processes

/// Acts on the pressure monitor's triggers: runs a ``PressureEpisode`` on the daemon's
/// real processes and cgroups, and accounts for every kill in the event log.
final class PressureResponder: PressureEnvironment {
    private let registry: ProcessRegistry
    /// Sends the kills: the supervisor is the only sender of SIGKILL.
    private let supervisor: ProcessSupervisor
    private let events: EventLog
    private let tree: CgroupTree
    private let warnings: MemoryWarnings
    /// Whether the tree was past `pressure.warn` at the last reading, across episodes.
    private var warning = PressureWarning()
    /// The watermarks of the episode under way.
    private var watermarks: PressureWatermarks?
    /// Kills whose cgroup did not empty within ``emptyTimeout``, by victim: recorded once
    /// the run has ended, so that every kill event carries all four timestamps.
    private var unfinished: [String: (kill: PressureKill, watermarks: PressureWatermarks?)] = [:]
    /// The tree's memory at the last reading of an episode: the usage thresholds follow
    /// its unmapped cache, and re-checks its working set.
    private(set) var lastReading: WorkingSet.Reading?
    /// When a reading last found the working set below the low watermark.
    private var lastBelowLow: MonotonicInstant?

    /// A kill waits at most this long for the victim's cgroup to empty.
    static let emptyTimeout: Duration = .milliseconds(100)

    /// When a process last served a request; the policy spares the most recently used.
    private let lastUsed: (SupervisedProcess) -> MonotonicInstant?

    init(registry: ProcessRegistry, supervisor: ProcessSupervisor, events: EventLog, tree: CgroupTree, warnings: MemoryWarnings,
         lastUsed: @escaping (SupervisedProcess) -> MonotonicInstant?) {
        self.registry = registry
        self.warnings = warnings
        self.supervisor = supervisor
        self.events = events
        self.tree = tree
        self.lastUsed = lastUsed
    }

    /// Runs one episode for `trigger` against `watermarks` (`nil` without `memory_budget`).
    /// Runs to its end on the loop thread: each wait for a victim's cgroup is bounded by
    /// ``emptyTimeout``.
    func respond(to trigger: PressureTrigger, watermarks: PressureWatermarks?) {
        self.watermarks = watermarks
        PressureEpisode.run(after: trigger, thresholds: watermarks?.thresholds, warning: &warning, in: self)
    }

    // MARK: PressureEnvironment

    func now() -> MonotonicInstant { .current() }

    func treeUsage() -> UInt64? {
        guard let reading = WorkingSet.read(tree.root) else { return nil }
        lastReading = reading
        if let low = watermarks?.thresholds.lowBytes, reading.workingSet < low { lastBelowLow = .current() }
        return reading.workingSet
    }

    func candidates(at level: PressureLevel) -> [KillCandidate] {
        KillCandidates.killable(in: registry, at: level, lastUsed: lastUsed)
    }

    func kill(_ victim: KillCandidate, reason: StopReason) -> MonotonicInstant? {
        guard let process = registry[victim.id] else { return nil }
        // Its exit is handled later on this thread, with this reason; the kill event is
        // recorded by ``killed(_:)`` with the kill's figures.
        return supervisor.kill(process, reason: reason, message: nil)
    }

    func waitUntilEmpty(_ victim: KillCandidate) -> MonotonicInstant? {
        guard let run = registry[victim.id]?.run, (try? run.group.waitUntilEmpty(timeout: Self.emptyTimeout)) == true else { return nil }
        return .current()
    }

    func killed(_ finished: PressureKill) {
        var kill = finished
        kill.lastBelowLow = lastBelowLow
        if kill.empty == nil {
            unfinished[kill.victim.id] = (kill, watermarks)
        } else {
            record(kill, watermarks: watermarks)
        }
    }

    func warnExtensions(workingSet: UInt64, watermark: UInt64) {
        warnings.warnTree(registry.ordered, workingSet: workingSet, watermark: watermark)
    }

    /// Hook for every end of a run: records a kill that was waiting for its cgroup.
    func runEnded(_ process: SupervisedProcess) {
        guard let (unfinishedKill, watermarks) = unfinished.removeValue(forKey: process.name) else { return }
        var kill = unfinishedKill
        kill.empty = .current()
        record(kill, watermarks: watermarks)
    }

    private func record(_ kill: PressureKill, watermarks: PressureWatermarks?) {
        var record = KillRecord(band: "\(kill.victim.band)", triggerUs: kill.trigger.microseconds, decisionUs: kill.decision.microseconds,
                                signalUs: kill.signal.microseconds, emptyUs: kill.empty?.microseconds)
        record.lastBelowLowUs = kill.lastBelowLow?.microseconds
        record.rssBytes = kill.victim.residentBytes
        record.growthBytes = kill.victim.growthBytes
        record.treeUsageBytes = kill.treeUsageBytes
        record.budgetBytes = watermarks?.budgetBytes
        record.psiSomeAvg10 = PressureStallAverages.read(PressureStallAverages.systemFile)?.someAverage10
        let budget = watermarks.map { " of \(Self.mebibytes($0.budgetBytes))" } ?? ""
        events.record(.kill, kill.victim.id, reason: kill.reason.rawValue,
                      "\(kill.level) memory pressure (\(kill.cause.map { "\($0.rawValue) trigger" } ?? "still, after the previous kill")), "
                          + "tree at \(Self.mebibytes(kill.treeUsageBytes))\(budget): killed \(kill.victim.band) holding \(Self.mebibytes(kill.victim.residentBytes)) (grew \(Self.mebibytes(kill.victim.growthBytes)))",
                      kill: record)
    }

    private static func mebibytes(_ bytes: UInt64) -> String {
        "\(bytes >> 20)M"
    }
}
