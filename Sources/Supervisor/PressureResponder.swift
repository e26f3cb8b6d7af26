import Cgroup
import ControlProtocol
import EventLoop
import ExtensiondPolicy
import Glibc

/// Acts on the pressure monitor's triggers: runs a ``PressureEpisode`` on the daemon's
/// real processes and cgroups, and accounts for every kill in the event log.
final class PressureResponder: PressureEnvironment {
    private let registry: ProcessRegistry
    private let events: EventLog
    private let tree: CgroupTree
    /// The watermarks of the episode under way.
    private var watermarks: PressureWatermarks?
    /// Kills whose cgroup did not empty within ``emptyTimeout``, by victim: recorded once
    /// the run has ended, so that every kill event carries all four timestamps.
    private var unfinished: [String: (kill: PressureKill, watermarks: PressureWatermarks?)] = [:]
    /// The tree's unmapped page cache at the last reading: the usage thresholds follow it.
    private(set) var unmappedCache: UInt64 = 0

    /// A kill waits at most this long for the victim's cgroup to empty.
    static let emptyTimeout: Duration = .milliseconds(100)

    /// When a process last served a request; the policy spares the most recently used.
    private let lastUsed: (SupervisedProcess) -> MonotonicInstant?

    init(registry: ProcessRegistry, events: EventLog, tree: CgroupTree, lastUsed: @escaping (SupervisedProcess) -> MonotonicInstant?) {
        self.registry = registry
        self.events = events
        self.tree = tree
        self.lastUsed = lastUsed
    }

    /// Runs one episode for `trigger` against `watermarks` (`nil` without `memory_budget`).
    /// Runs to its end on the loop thread: each wait for a victim's cgroup is bounded by
    /// ``emptyTimeout``.
    func respond(to trigger: PressureTrigger, watermarks: PressureWatermarks?) {
        self.watermarks = watermarks
        PressureEpisode.run(after: trigger, thresholds: watermarks?.thresholds, in: self)
    }

    // MARK: PressureEnvironment

    func now() -> MonotonicInstant { .current() }

    func treeUsage() -> UInt64? {
        guard let reading = WorkingSet.read(tree.root) else { return nil }
        unmappedCache = reading.unmappedCache
        return reading.workingSet
    }

    func candidates(at level: PressureLevel) -> [KillCandidate] {
        KillCandidates.killable(in: registry, at: level, lastUsed: lastUsed)
    }

    func kill(_ victim: KillCandidate, reason: String) -> MonotonicInstant? {
        guard let process = registry[victim.id], let run = process.run else { return nil }
        // The main process first, with one system call; then whatever else is in the group.
        let mainKilled = (try? run.process.descriptor.send(signal: SIGKILL)) != nil
        let signal = MonotonicInstant.current()
        do {
            try run.group.kill()
        } catch {
            events.record(.error, process.name, "kill \(run.group): \(error)")
            guard mainKilled else { return nil }
        }
        // Its exit is handled later on this thread, with this reason.
        run.stopReason = reason
        process.statistics.kills[reason, default: 0] += 1
        return signal
    }

    func waitUntilEmpty(_ victim: KillCandidate) -> MonotonicInstant? {
        guard let run = registry[victim.id]?.run, (try? run.group.waitUntilEmpty(timeout: Self.emptyTimeout)) == true else { return nil }
        return .current()
    }

    func killed(_ kill: PressureKill) {
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
        var record = KillRecord(band: "\(kill.victim.band)", triggerUs: kill.trigger.microseconds, decisionUs: kill.decision.microseconds,
                                signalUs: kill.signal.microseconds, emptyUs: kill.empty?.microseconds)
        record.rssBytes = kill.victim.residentBytes
        record.treeUsageBytes = kill.treeUsageBytes
        record.budgetBytes = watermarks?.budgetBytes
        record.psiSomeAvg10 = PressureStallAverages.read(PressureStallAverages.systemFile)?.someAverage10
        let budget = watermarks.map { " of \(Self.mebibytes($0.budgetBytes))" } ?? ""
        events.record(.kill, kill.victim.id, reason: kill.reason,
                      "\(kill.level) memory pressure (\(kill.cause.map { "\($0.rawValue) trigger" } ?? "still, after the previous kill")), "
                          + "tree at \(Self.mebibytes(kill.treeUsageBytes))\(budget): killed \(kill.victim.band) holding \(Self.mebibytes(kill.victim.residentBytes))",
                      kill: record)
    }

    private static func mebibytes(_ bytes: UInt64) -> String {
        "\(bytes >> 20)M"
    }
}
