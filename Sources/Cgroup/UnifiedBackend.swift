import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

/// cgroup v2: one hierarchy with the memory (and pids and cpu) controllers; leaves
/// only hold processes, so the daemon lives in `<root>/supervisor`.
struct UnifiedBackend: CgroupBackend {
    let root: String

    var version: CgroupVersion { .v2 }

    func directories(of group: String) -> [String] {
        [join(root, group)]
    }

    /// The one directory holds the memory controller's charges: none outlives a run.
    func runDirectories(of group: String) -> [String] {
        directories(of: group)
    }

    func memoryFile(_ name: MemoryFile, of group: String) -> String {
        let file =
            switch name {
            case .hardLimit: "memory.max"
            case .softLimit: "memory.high"
            case .usage: "memory.current"
            case .peak: "memory.peak"
            }
        return "\(join(root, group))/\(file)"
    }

    func spawnPlacement(of group: String) -> SpawnRequest.CgroupPlacement {
        .cloneInto(directory: join(root, group))
    }

    /// Moves every process of the root into `supervisor` (a cgroup with
    /// processes cannot enable controllers for its children), then enables
    /// memory, pids and cpu (those offered) for the root's and the subtrees' children.
    func prepare(supervisor: String, subtrees: [String]) throws(CgroupError) {
        try CgroupFiles.makeDirectory(join(root, supervisor))
        for pid in try CgroupFiles.readIDs("\(root)/cgroup.procs") {
            do throws(CgroupError) {
                try CgroupFiles.write("\(pid)", to: "\(join(root, supervisor))/cgroup.procs")
            } catch .systemCall(_, _, ESRCH) {
                // It exited meanwhile.
            }
        }
        let available = try CgroupFiles.read("\(root)/cgroup.controllers").split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard available.contains("memory") else {
            throw .noMemoryController("\(root)/cgroup.controllers does not list memory")
        }
        let enable = ["memory", "pids", "cpu"].filter { available.contains(Substring($0)) }.map { "+\($0)" }.joined(separator: " ")
        try CgroupFiles.write(enable, to: "\(root)/cgroup.subtree_control")
        for subtree in subtrees {
            try CgroupFiles.makeDirectory(join(root, subtree))
            try CgroupFiles.write(enable, to: "\(join(root, subtree))/cgroup.subtree_control")
        }
    }

    func setPidsMax(_ limit: Int?, of group: String) throws(CgroupError) {
        try CgroupFiles.write(limit.map(String.init) ?? "max", to: "\(join(root, group))/pids.max")
    }

    func setCPUQuota(_ quota: CgroupLimits.CPUQuota?, of group: String) throws(CgroupError) {
        let path = "\(join(root, group))/cpu.max"
        guard access(path, F_OK) == 0 else { return }
        try CgroupFiles.write(quota.map { "\($0.microseconds) \($0.periodMicroseconds)" } ?? "max", to: path)
    }

    func setCPUWeight(_ weight: Int?, of group: String) throws(CgroupError) {
        let path = "\(join(root, group))/cpu.weight"
        guard access(path, F_OK) == 0 else { return }
        try CgroupFiles.write("\(weight ?? 100)", to: path)
    }

    func processes(of group: String) throws(CgroupError) -> [pid_t] {
        try listIDs(in: "cgroup.procs", inSubtreesOf: directories(of: group))
    }

    func threads(of group: String) throws(CgroupError) -> [pid_t] {
        try listIDs(in: "cgroup.threads", inSubtreesOf: directories(of: group))
    }

    /// `cgroup.kill` (Linux 5.14+) kills the whole subtree atomically, fork
    /// races included; older kernels get the pid-by-pid sweep.
    func kill(_ group: String) throws(CgroupError) -> [pid_t] {
        let victims = try processes(of: group)
        do throws(CgroupError) {
            try CgroupFiles.write("1", to: "\(join(root, group))/cgroup.kill")
            return victims
        } catch .systemCall(_, _, ENOENT) {
            return try killListedProcesses(of: group)
        }
    }

    var canFreeze: Bool { true }

    /// `cgroup.freeze` (Linux 5.2+). SIGKILL ends a frozen task here: no thaw is needed.
    func setFrozen(_ frozen: Bool, of group: String) throws(CgroupError) {
        try CgroupFiles.write(frozen ? "1" : "0", to: "\(join(root, group))/cgroup.freeze")
    }

    /// `frozen 1` in `cgroup.events` once every task has stopped; asked but not yet there
    /// is freezing.
    func freezerState(of group: String) throws(CgroupError) -> FreezerState {
        let directory = join(root, group)
        if try CgroupFiles.readKeyedCounters("\(directory)/cgroup.events")["frozen"] == 1 { return .frozen }
        return try CgroupFiles.readNumber("\(directory)/cgroup.freeze") == 1 ? .freezing : .thawed
    }

    /// `memory.reclaim` (Linux 5.19+): anonymous memory goes to swap or zram where there
    /// is some, file pages are dropped. EAGAIN when less than asked could be reclaimed.
    func reclaim(_ bytes: UInt64, of group: String) throws(CgroupError) {
        try CgroupFiles.write(String(bytes), to: "\(join(root, group))/memory.reclaim")
    }

    func memoryEvents(of group: String) throws(CgroupError) -> MemoryEvents {
        let path = "\(join(root, group))/memory.events"
        let counters = try CgroupFiles.readKeyedCounters(path)
        guard let oomKills = counters["oom_kill"] else {
            throw .malformed(path: path, content: try CgroupFiles.read(path), expected: "an oom_kill line")
        }
        return MemoryEvents(oomKills: oomKills, ooms: counters["oom"], high: counters["high"], max: counters["max"])
    }

    /// Fires on every change of `memory.events` (high, max, oom, oom_kill);
    /// read ``ControlGroup/memoryEvents()`` to see which.
    func oomEvents(of group: String) throws(CgroupError) -> CgroupEventSource {
        try .fileWatch("\(join(root, group))/memory.events", purpose: "memory events")
    }

    func usageThreshold(_ bytes: UInt64, of group: String) throws(CgroupError) -> CgroupEventSource {
        throw .unsupported("a usage threshold (\(bytes) bytes)", version: .v2, alternative: "set memory_high and watch memory.events, or use a PSI trigger")
    }

    func pressureLevel(_ level: MemoryPressureLevel, of group: String) throws(CgroupError) -> CgroupEventSource {
        throw .unsupported("memory.pressure_level (\(level))", version: .v2, alternative: "use a PSI trigger on memory.pressure")
    }

    func pressureTrigger(_ rule: PressureTriggerRule, of group: String) throws(CgroupError) -> CgroupEventSource {
        try .pressureTrigger(rule, file: "\(join(root, group))/memory.pressure")
    }

    /// Fires when `cgroup.events` changes, e.g. to `populated 0`.
    func populationWatch(of group: String) throws(CgroupError) -> CgroupEventSource? {
        try .fileWatch("\(join(root, group))/cgroup.events", purpose: "population")
    }
}
