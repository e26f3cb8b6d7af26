import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

/// What differs between cgroup v1 and v2. Groups are named by their path
/// relative to the tree's root (`""`, `supervisor`, `extensions/<id>`).
protocol CgroupBackend: Sendable {
    var version: CgroupVersion { get }

    /// The group's directory in each hierarchy it has, the memory one first.
    func directories(of group: String) -> [String]
    /// Those of ``directories(of:)`` made and removed with each run; the others are kept
    /// between the runs of one process.
    func runDirectories(of group: String) -> [String]
    /// The file holding the group's memory-controller setting or reading `name`.
    func memoryFile(_ name: MemoryFile, of group: String) -> String
    /// How a spawned child enters the group.
    func spawnPlacement(of group: String) -> SpawnRequest.CgroupPlacement
    /// Holds the directories of the prepared `subtree` open, for ``anchored(_:)``.
    func holdOpen(_ subtree: String)
    /// `path` (of the tree) as the kernel should walk it: from a directory the backend holds open, if any.
    func anchored(_ path: String) -> AnchoredPath
    /// Closes what ``anchored(_:)`` walks from: the tree is released.
    func closeHeldDirectories()

    /// Makes `<root>/supervisor` and the kind subtrees usable for leaves.
    func prepare(supervisor: String, subtrees: [String]) throws(CgroupError)
    /// Sets `pids.max` (`nil`: unlimited).
    func setPidsMax(_ limit: Int?, of group: String) throws(CgroupError)
    /// Sets the CPU time per period (`nil`: unlimited); nothing where the cpu controller is missing.
    func setCPUQuota(_ quota: CgroupLimits.CPUQuota?, of group: String) throws(CgroupError)
    /// The same in a group just made, whose settings are the kernel's defaults.
    func setCPUQuota(_ quota: CgroupLimits.CPUQuota?, ofNew group: String) throws(CgroupError)
    /// Sets the CPU weight (`nil`: the kernel's default, 100); nothing where the cpu controller is missing.
    func setCPUWeight(_ weight: Int?, of group: String) throws(CgroupError)
    /// The processes of the group and of any cgroup below it.
    func processes(of group: String) throws(CgroupError) -> [pid_t]
    /// The threads of the group and of any cgroup below it.
    func threads(of group: String) throws(CgroupError) -> [pid_t]
    /// Kills every process of the group; returns the pids it signalled.
    func kill(_ group: String) throws(CgroupError) -> [pid_t]
    func memoryEvents(of group: String) throws(CgroupError) -> MemoryEvents
    /// Whether ``setFrozen(_:of:)`` can work (v1 needs the freezer hierarchy).
    var canFreeze: Bool { get }
    /// Freezes (`true`) or thaws the group and every group below it.
    func setFrozen(_ frozen: Bool, of group: String) throws(CgroupError)
    /// Where the group's freezing stands, as the kernel says.
    func freezerState(of group: String) throws(CgroupError) -> FreezerState
    /// Asks the kernel to reclaim `bytes` of the group's memory now (v2 `memory.reclaim`).
    func reclaim(_ bytes: UInt64, of group: String) throws(CgroupError)

    func oomEvents(of group: String) throws(CgroupError) -> CgroupEventSource
    func usageThreshold(_ bytes: UInt64, of group: String) throws(CgroupError) -> CgroupEventSource
    func pressureLevel(_ level: MemoryPressureLevel, of group: String) throws(CgroupError) -> CgroupEventSource
    func pressureTrigger(_ rule: PressureTriggerRule, of group: String) throws(CgroupError) -> CgroupEventSource
    /// A source that fires when the group's population changes, where the
    /// kernel offers one (v2 `cgroup.events`).
    func populationWatch(of group: String) throws(CgroupError) -> CgroupEventSource?
}

/// The memory-controller files whose names differ between versions.
enum MemoryFile {
    case hardLimit
    case softLimit
    case usage
    case peak
}

extension CgroupBackend {
    func holdOpen(_ subtree: String) {}
    func anchored(_ path: String) -> AnchoredPath { AnchoredPath(path) }
    func closeHeldDirectories() {}
    func setCPUQuota(_ quota: CgroupLimits.CPUQuota?, ofNew group: String) throws(CgroupError) {
        try setCPUQuota(quota, of: group)
    }

    /// Sends SIGKILL to every listed process, and again to any that appear
    /// meanwhile (children forked before the signal landed), until a listing
    /// shows nobody new. Exiting processes leave the listing on their own.
    /// The passes are bounded: `pids_max` bounds what a fork loop can add.
    func killListedProcesses(of group: String) throws(CgroupError) -> [pid_t] {
        var signalled = Set<pid_t>()
        for _ in 0..<64 {
            let fresh = try processes(of: group).filter { !signalled.contains($0) }
            guard !fresh.isEmpty else { break }
            for pid in fresh {
                _ = Glibc.kill(pid, SIGKILL)
            }
            signalled.formUnion(fresh)
        }
        return signalled.sorted()
    }

    /// The ids in every `file` (`cgroup.procs`, `cgroup.threads`, `tasks`) of the subtrees
    /// of `directories`.
    func listIDs(in file: String, inSubtreesOf directories: [String]) throws(CgroupError) -> [pid_t] {
        var ids = Set<pid_t>()
        for directory in directories {
            for cgroup in try CgroupFiles.tree(directory) {
                ids.formUnion(try CgroupFiles.readIDs("\(cgroup)/\(file)"))
            }
        }
        return ids.sorted()
    }
}
