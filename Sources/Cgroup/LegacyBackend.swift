import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

/// cgroup v1: the memory controller in its own hierarchy, and optionally the
/// pids, freezer, cpu and cpuacct controllers in others (cpu and cpuacct often share
/// one). Each group is a directory in each.
///
/// v1 has no throttle: `memory_high` becomes `memory.soft_limit_in_bytes`
/// (reclaimed first under global pressure), and warnings come from usage
/// threshold eventfds. v1 has no `cgroup.kill`: processes are killed by pid.
struct LegacyBackend: CgroupBackend {
    let memoryRoot: String
    let pidsRoot: String?
    var cpuRoot: String?
    /// CPU accounting (`cpuacct.usage`), for whoever measures a group's CPU time.
    var cpuacctRoot: String?
    var freezerRoot: String?
    /// The subtrees held open (``holdOpen(_:)``) in every hierarchy.
    let subtrees = OpenDirectories()

    var version: CgroupVersion { .v1 }

    /// The memory hierarchy first, then the others present, each once.
    var roots: [String] {
        var roots = [memoryRoot]
        for root in [pidsRoot, freezerRoot, cpuRoot, cpuacctRoot].compactMap({ $0 }) where !roots.contains(root) { roots.append(root) }
        return roots
    }

    func directories(of group: String) -> [String] {
        roots.map { join($0, group) }
    }

    /// The memory group: its charges (page cache included) stay with a group after its
    /// processes exit, and must not be counted against the next run. The pids, freezer
    /// and cpu groups hold no such state and are kept.
    func runDirectories(of group: String) -> [String] {
        [join(memoryRoot, group)]
    }

    func memoryFile(_ name: MemoryFile, of group: String) -> String {
        let file =
            switch name {
            case .hardLimit: "memory.limit_in_bytes"
            case .softLimit: "memory.soft_limit_in_bytes"
            case .usage: "memory.usage_in_bytes"
            case .peak: "memory.max_usage_in_bytes"
            }
        return "\(join(memoryRoot, group))/\(file)"
    }

    func spawnPlacement(of group: String) -> SpawnRequest.CgroupPlacement {
        .joinBeforeExec(taskFiles: directories(of: group).map { anchored("\($0)/tasks") })
    }

    func anchored(_ path: String) -> AnchoredPath { subtrees.anchor(path) }

    func closeHeldDirectories() { subtrees.closeAll() }

    /// No controllers to enable and no internal-process rule, so only the directories
    /// are made (the roots too: a daemon's own child group is made here).
    func prepare(supervisor: String, subtrees: [String]) throws(CgroupError) {
        for root in roots { try CgroupFiles.makeDirectory(root) }
        for group in [supervisor] + subtrees {
            for directory in directories(of: group) {
                try CgroupFiles.makeDirectory(directory)
            }
        }
    }

    /// One descriptor per hierarchy, for as long as the tree is prepared.
    func holdOpen(_ subtree: String) {
        for directory in directories(of: subtree) { self.subtrees.hold(directory) }
    }

    func setPidsMax(_ limit: Int?, of group: String) throws(CgroupError) {
        guard let pidsRoot else {
            guard limit == nil else {
                throw .unsupported("pids_max", version: .v1, alternative: "mount the pids controller (no v1 pids hierarchy found)")
            }
            return
        }
        try CgroupFiles.write(limit.map(String.init) ?? "max", to: anchored("\(join(pidsRoot, group))/pids.max"))
    }

    func setCPUQuota(_ quota: CgroupLimits.CPUQuota?, of group: String) throws(CgroupError) {
        try setCPUQuota(quota, of: group, periodInForce: nil)
    }

    /// Each write of the period or the quota updates the group's bandwidth on every CPU.
    func setCPUQuota(_ quota: CgroupLimits.CPUQuota?, ofNew group: String) throws(CgroupError) {
        try setCPUQuota(quota, of: group, periodInForce: Self.defaultCPUPeriodMicroseconds)
    }

    /// `cpu.cfs_period_us` of a new group.
    static let defaultCPUPeriodMicroseconds = 100_000

    private func setCPUQuota(_ quota: CgroupLimits.CPUQuota?, of group: String, periodInForce: Int?) throws(CgroupError) {
        guard let cpuRoot else { return }
        let directory = join(cpuRoot, group)
        // The period first: a quota is checked against the period in force.
        if let quota, quota.periodMicroseconds != periodInForce {
            try CgroupFiles.write("\(quota.periodMicroseconds)", to: anchored("\(directory)/cpu.cfs_period_us"))
        }
        try CgroupFiles.write(quota.map { "\($0.microseconds)" } ?? "-1", to: anchored("\(directory)/cpu.cfs_quota_us"))
    }

    /// v1 `cpu.shares` is 1024 at weight 100, from 2 up.
    func setCPUWeight(_ weight: Int?, of group: String) throws(CgroupError) {
        guard let cpuRoot else { return }
        try CgroupFiles.write("\(max(2, (weight ?? 100) * 1024 / 100))", to: anchored("\(join(cpuRoot, group))/cpu.shares"))
    }

    /// The group's processes are those of its memory and pids groups: the freezer group
    /// only freezes (a process that moved itself out of the others has left the group).
    func processes(of group: String) throws(CgroupError) -> [pid_t] {
        try listIDs(in: "cgroup.procs", inSubtreesOf: membershipDirectories(of: group))
    }

    func threads(of group: String) throws(CgroupError) -> [pid_t] {
        try listIDs(in: "tasks", inSubtreesOf: membershipDirectories(of: group))
    }

    private func membershipDirectories(of group: String) -> [String] {
        [memoryRoot, pidsRoot].compactMap { $0 }.map { join($0, group) }
    }

    /// A v1 frozen task does not act on SIGKILL until thawed: the group is thawed after
    /// the signals, so that nothing runs before they are taken.
    func kill(_ group: String) throws(CgroupError) -> [pid_t] {
        let signalled = try killListedProcesses(of: group)
        if canFreeze { try setFrozen(false, of: group) }
        return signalled
    }

    var canFreeze: Bool { freezerRoot != nil }

    func reclaim(_ bytes: UInt64, of group: String) throws(CgroupError) {
        throw .unsupported("memory.reclaim", version: .v1, alternative: "nothing: v1 has no proactive reclaim; the pressure episode kills without it")
    }

    func setFrozen(_ frozen: Bool, of group: String) throws(CgroupError) {
        try CgroupFiles.write(frozen ? "FROZEN" : "THAWED", to: anchored(try freezerFile(of: group)))
    }

    /// `freezer.state`: `FREEZING` until every task has stopped (a task in the middle of
    /// a system call may take a while); the kernel retries at each read.
    func freezerState(of group: String) throws(CgroupError) -> FreezerState {
        let path = try freezerFile(of: group)
        let text = try CgroupFiles.read(path).trimmingASCIIWhitespace
        switch text {
        case "THAWED": return .thawed
        case "FREEZING": return .freezing
        case "FROZEN": return .frozen
        default: throw .malformed(path: path, content: String(text), expected: "THAWED, FREEZING or FROZEN")
        }
    }

    private func freezerFile(of group: String) throws(CgroupError) -> String {
        guard let freezerRoot else {
            throw .unsupported("freezing", version: .v1, alternative: "mount the freezer controller (no v1 freezer hierarchy found)")
        }
        return "\(join(freezerRoot, group))/freezer.state"
    }

    func memoryEvents(of group: String) throws(CgroupError) -> MemoryEvents {
        let directory = join(memoryRoot, group)
        let path = "\(directory)/memory.oom_control"
        guard let oomKills = try CgroupFiles.readKeyedCounters(path)["oom_kill"] else {
            throw .malformed(path: path, content: try CgroupFiles.read(path), expected: "an oom_kill line")
        }
        return MemoryEvents(oomKills: oomKills, max: try CgroupFiles.readNumber("\(directory)/memory.failcnt"))
    }

    /// Fires when the OOM killer acts in the group (or it is under OOM).
    func oomEvents(of group: String) throws(CgroupError) -> CgroupEventSource {
        try .registeredEventfd(directory: join(memoryRoot, group), file: "memory.oom_control", arguments: nil, purpose: "oom", anchored: anchored)
    }

    /// Fires each time usage crosses `bytes`, upwards or downwards.
    func usageThreshold(_ bytes: UInt64, of group: String) throws(CgroupError) -> CgroupEventSource {
        try .registeredEventfd(directory: join(memoryRoot, group), file: "memory.usage_in_bytes", arguments: "\(bytes)", purpose: "usage threshold \(bytes)")
    }

    /// Fires at `level` or above, for reclaim in the group or below it.
    func pressureLevel(_ level: MemoryPressureLevel, of group: String) throws(CgroupError) -> CgroupEventSource {
        try .registeredEventfd(directory: join(memoryRoot, group), file: "memory.pressure_level", arguments: level.rawValue, purpose: "\(level) pressure")
    }

    func pressureTrigger(_ rule: PressureTriggerRule, of group: String) throws(CgroupError) -> CgroupEventSource {
        throw .unsupported(
            "a per-cgroup PSI trigger (\(rule))", version: .v1, alternative: "use the system-wide /proc/pressure/memory trigger or memory.pressure_level")
    }

    /// v1 has no population event: callers re-check after child exits.
    func populationWatch(of group: String) throws(CgroupError) -> CgroupEventSource? {
        nil
    }
}

/// `root/group`, or `root` for the root group.
func join(_ root: String, _ group: String) -> String {
    group.isEmpty ? root : "\(root)/\(group)"
}
