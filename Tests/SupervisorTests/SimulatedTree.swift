import EventLoop
import ExtensiondPolicy
@testable import Pressure

/// A memory tree in virtual time for ``PressureEpisode``: processes hold memory until
/// killed; a kill frees it once the group is seen empty, unless the group is stuck.
final class SimulatedTree: PressureEnvironment {
    struct Process {
        var candidate: KillCandidate
        /// Its group does not empty within the bound (a process in uninterruptible sleep).
        var stuck = false
        var alive = true
    }

    var processes: [Process]
    /// Memory charged to the tree outside the processes (the daemon, page cache).
    var baseline: UInt64
    private var clock: UInt64 = 1_000
    private(set) var kills: [PressureKill] = []
    private(set) var signalled: [String] = []
    /// The working sets at which the extensions were warned of `pressure.warn`.
    private(set) var warnings: [UInt64] = []

    init(processes: [Process], baseline: UInt64) {
        self.processes = processes
        self.baseline = baseline
    }

    /// Every call to the clock advances it by a microsecond.
    func now() -> MonotonicInstant {
        clock += 1
        return MonotonicInstant(microseconds: clock)
    }

    func treeUsage() -> UInt64? {
        baseline + processes.filter(\.alive).reduce(0) { $0 + $1.candidate.residentBytes }
    }

    func candidates(at level: PressureLevel) -> [KillCandidate] {
        processes.filter(\.alive).map(\.candidate).filter { $0.band.isKillable(at: level) }
    }

    func kill(_ victim: KillCandidate, reason: StopReason) -> MonotonicInstant? {
        signalled.append(victim.id)
        return now()
    }

    func waitUntilEmpty(_ victim: KillCandidate) -> MonotonicInstant? {
        guard let index = processes.firstIndex(where: { $0.candidate.id == victim.id }), !processes[index].stuck else { return nil }
        processes[index].alive = false
        return now()
    }

    func killed(_ kill: PressureKill) {
        kills.append(kill)
    }

    func warnExtensions(workingSet: UInt64, watermark: UInt64) {
        warnings.append(workingSet)
    }
}
