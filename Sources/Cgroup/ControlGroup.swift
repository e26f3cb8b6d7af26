import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

/// One cgroup of extensiond's tree (a host, app or extension, the supervisor,
/// or the root): its limits, readings, notifications and removal, the same on
/// cgroup v1 and v2.
public struct ControlGroup: Sendable, CustomStringConvertible {
    /// The path below the tree's root: `extensions/<id>`, `supervisor`, or `""` for the root.
    public let name: String
    let backend: any CgroupBackend
    /// Whether ``CgroupTree/group(_:id:)`` created the group just now: the kernel gave it
    /// no limits and zero counters, so ``apply(_:)`` writes only the limits that are set
    /// and a caller need not read counters it knows to be zero. A launch saves that much.
    public let isNew: Bool
    /// Whether the directories kept between runs (v1: every hierarchy but memory's) were
    /// there from an earlier run (``CgroupTree/group(_:id:)``).
    public let reusesKept: Bool

    init(name: String, backend: any CgroupBackend, isNew: Bool = false, reusesKept: Bool = false) {
        self.name = name
        self.backend = backend
        self.isNew = isNew
        self.reusesKept = reusesKept
    }

    /// The backend in use.
    public var version: CgroupVersion { backend.version }
    /// The group's directory in each hierarchy (v1: memory, then pids).
    public var directories: [String] { backend.directories(of: name) }
    /// How a child is started inside this group; pass it as ``SpawnRequest/cgroup``.
    public var spawnPlacement: SpawnRequest.CgroupPlacement { backend.spawnPlacement(of: name) }
    /// The memory directory.
    public var description: String { directories[0] }

    // MARK: Limits

    /// Sets every limit of `limits`, in one go; on a new group (``isNew``) only those
    /// that are set, the others being the kernel's "none" already. In directories kept
    /// from an earlier run (``reusesKept``), only those that differ from `kept`, what the
    /// earlier run was given (`nil`: not known, all are written).
    public func apply(_ limits: CgroupLimits, kept: CgroupLimits? = nil) throws(CgroupError) {
        if !isNew || limits.memoryMax != nil { try setMemoryMax(limits.memoryMax) }
        if !isNew || limits.memoryHigh != nil { try setMemoryHigh(limits.memoryHigh) }
        if !isNew || limits.memoryLow != nil { try setMemoryLow(limits.memoryLow) }
        // v1 keeps these (pids, cpu) between runs; v2 makes them afresh with the group.
        let fresh = backend.version == .v2 ? isNew : !reusesKept
        func needed<Value: Equatable>(_ limit: KeyPath<CgroupLimits, Value?>) -> Bool {
            if fresh { return limits[keyPath: limit] != nil }
            return backend.version == .v2 || kept.map { $0[keyPath: limit] != limits[keyPath: limit] } ?? true
        }
        if needed(\.pidsMax) { try setPidsMax(limits.pidsMax) }
        if needed(\.cpuQuota) {
            if fresh { try backend.setCPUQuota(limits.cpuQuota, ofNew: name) } else { try backend.setCPUQuota(limits.cpuQuota, of: name) }
        }
        if needed(\.cpuWeight) { try backend.setCPUWeight(limits.cpuWeight, of: name) }
    }

    /// Sets the hard limit (`memory_max`; v2 `memory.max`, v1
    /// `memory.limit_in_bytes`). The kernel OOM-kills inside the group when
    /// it cannot reclaim below it. `nil` removes the limit.
    public func setMemoryMax(_ bytes: UInt64?) throws(CgroupError) {
        try CgroupFiles.write(bytes.map(String.init) ?? unlimited, to: backend.anchored(backend.memoryFile(.hardLimit, of: name)))
    }

    /// Sets the soft limit (`memory_high`): v2 `memory.high` throttles above
    /// it; v1 has no throttle and gets `memory.soft_limit_in_bytes`, reclaimed
    /// first under global pressure. Warnings to the extension come from the
    /// daemon on both. `nil` removes the limit.
    public func setMemoryHigh(_ bytes: UInt64?) throws(CgroupError) {
        try CgroupFiles.write(bytes.map(String.init) ?? unlimited, to: backend.anchored(backend.memoryFile(.softLimit, of: name)))
    }

    /// Sets the protection from reclaim (v2 `memory.low`): the kernel reclaims from the
    /// group's siblings first while its usage is below it. v1 has no such file: nothing
    /// happens there. `nil` removes it.
    public func setMemoryLow(_ bytes: UInt64?) throws(CgroupError) {
        guard version == .v2 else { return }
        try CgroupFiles.write(bytes.map(String.init) ?? "0", to: "\(description)/memory.low")
    }

    /// Sets `pids.max`; `nil` removes the limit. On v1 without a pids
    /// hierarchy a limit is refused as unsupported.
    public func setPidsMax(_ limit: Int?) throws(CgroupError) {
        try backend.setPidsMax(limit, of: name)
    }

    private var unlimited: String { backend.version == .v2 ? "max" : "-1" }

    // MARK: Readings

    /// The file ``memoryUsage()`` reads (`memory.current`, or v1 `memory.usage_in_bytes`),
    /// for callers that keep it open (see `CounterFile`).
    public var memoryUsagePath: String { backend.memoryFile(.usage, of: name) }

    /// The file ``memoryHigh()`` reads, for callers that keep it open.
    public var memoryHighPath: String { backend.memoryFile(.softLimit, of: name) }

    /// Memory charged to the group now, descendants included.
    public func memoryUsage() throws(CgroupError) -> UInt64 {
        try CgroupFiles.readNumber(backend.memoryFile(.usage, of: name))
    }

    /// The highest usage since the group was created.
    public func memoryPeak() throws(CgroupError) -> UInt64 {
        try CgroupFiles.readNumber(backend.memoryFile(.peak, of: name))
    }

    /// The current hard limit, or `nil` when unlimited.
    public func memoryMax() throws(CgroupError) -> UInt64? {
        try memoryLimit(.hardLimit)
    }

    /// The current soft limit (v2 `memory.high`, the throttle), or `nil` when unlimited.
    public func memoryHigh() throws(CgroupError) -> UInt64? {
        try memoryLimit(.softLimit)
    }

    private func memoryLimit(_ file: MemoryFile) throws(CgroupError) -> UInt64? {
        let path = backend.memoryFile(file, of: name)
        let text = try CgroupFiles.read(path).trimmingASCIIWhitespace
        if text == "max" { return nil }
        guard let value = UInt64(text) else {
            throw .malformed(path: path, content: String(text), expected: "a number of bytes or max")
        }
        // v1 reports "no limit" as the largest page-aligned Int64 (page size varies).
        return value >= 1 << 62 ? nil : value
    }

    /// The processes in the group and below it.
    public func processes() throws(CgroupError) -> [pid_t] {
        try backend.processes(of: name)
    }

    /// The threads in the group and below it: unlike the process listing, it keeps an
    /// exiting process until its last thread is gone.
    public func threads() throws(CgroupError) -> [pid_t] {
        try backend.threads(of: name)
    }

    /// Whether no thread is left, so that the memory of the group's processes has been
    /// freed; cheap enough to call after every child exit.
    public func isEmpty() throws(CgroupError) -> Bool {
        try threads().isEmpty
    }

    /// The group's memory event counters.
    public func memoryEvents() throws(CgroupError) -> MemoryEvents {
        try backend.memoryEvents(of: name)
    }

    // MARK: Freezing

    /// Whether the group can be frozen: always on v2, with the freezer hierarchy on v1.
    public var canFreeze: Bool { backend.canFreeze }

    /// Stops every task of the group and below it (v2 `cgroup.freeze`, v1
    /// `freezer.state`): none is scheduled until ``thaw()``, so none uses CPU, while its
    /// memory stays. Takes effect at once for most tasks; ``freezerState()`` says when all.
    public func freeze() throws(CgroupError) {
        try backend.setFrozen(true, of: name)
    }

    /// Lets the tasks of a frozen group run again.
    public func thaw() throws(CgroupError) {
        try backend.setFrozen(false, of: name)
    }

    /// Whether the group is thawed, freezing or frozen, read from the kernel.
    public func freezerState() throws(CgroupError) -> FreezerState {
        try backend.freezerState(of: name)
    }

    /// Whether ``reclaim(_:)`` can work: v2 only.
    public var canReclaim: Bool { backend.version == .v2 }

    /// Asks the kernel to reclaim up to `bytes` of the group's memory at once (v2
    /// `memory.reclaim`): worth it where anonymous memory can go to swap or zram. Throws
    /// EAGAIN when less could be reclaimed, and unsupported on v1.
    public func reclaim(_ bytes: UInt64) throws(CgroupError) {
        try backend.reclaim(bytes, of: name)
    }

    // MARK: Killing and removal

    /// Sends SIGKILL to every process of the group (v2 `cgroup.kill`; v1 pid
    /// by pid until no new pid appears, then a thaw: a frozen v1 task only dies once
    /// thawed). Returns the pids it found. Does not
    /// wait: watch ``populationWatch()`` or child exits, or call
    /// ``waitUntilEmpty(timeout:)``.
    @discardableResult
    public func kill() throws(CgroupError) -> [pid_t] {
        try backend.kill(name)
    }

    /// Blocks until no thread is left or `timeout` has passed, waiting on pidfds of the
    /// remaining processes. Returns whether the group is empty.
    ///
    /// Empty means no thread, not no process: `cgroup.procs` drops a killed process as
    /// soon as all its threads have begun to exit, while the last of them may still be
    /// freeing its memory (Linux 6.1: the listing was empty with the memory still charged
    /// in 23 of 30 kills of a two-thread process). A thread leaves the group after its
    /// share of that work, and a process's pidfd turns readable after its last thread.
    public func waitUntilEmpty(timeout: Duration) throws(CgroupError) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while try !isEmpty() {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            // A process that is already gone cannot be opened; the next listing drops it.
            let descriptors = try processes().compactMap { try? ProcessDescriptor.open(pid: $0) }
            var entries = descriptors.map { pollfd(fd: $0.fileDescriptor, events: Int16(POLLIN), revents: 0) }
            // Threads of processes no longer listed have no pidfd to wait on: look again soon.
            let wait = entries.isEmpty ? min(left, Self.exitingThreadsPoll) : left
            if poll(&entries, nfds_t(entries.count), wait.pollMilliseconds) < 0, errno != EINTR {
                throw .systemCall("poll pidfds of", path: description, errno: errno)
            }
        }
        return true
    }

    /// How often ``waitUntilEmpty(timeout:)`` looks again while only exiting threads remain.
    static let exitingThreadsPoll: Duration = .milliseconds(1)

    /// Removes the directories made for one run (v1: the memory group; v2: the group),
    /// keeping the others for the process's next run. Fails with EBUSY while processes remain.
    public func removeRunDirectories() throws(CgroupError) {
        for directory in backend.runDirectories(of: name) {
            try CgroupFiles.removeTree(directory)
        }
    }

    /// Whether directories kept from a run are there (v1).
    public var hasKeptDirectories: Bool {
        let run = backend.runDirectories(of: name)
        return directories.contains { !run.contains($0) && access($0, F_OK) == 0 }
    }

    /// Removes the group (and any cgroup below it) from every hierarchy.
    /// Fails with EBUSY while processes remain: kill and wait first.
    public func remove() throws(CgroupError) {
        for directory in directories {
            try CgroupFiles.removeTree(directory)
        }
    }

    /// Kills, waits at most `timeout`, and removes the group.
    public func destroy(timeout: Duration) throws(CgroupError) {
        try kill()
        guard try waitUntilEmpty(timeout: timeout) else {
            throw .stillPopulated(path: description, processes: try processes())
        }
        try remove()
    }

    // MARK: Notifications

    /// Fires when the kernel OOM killer acts in the group: v1 an eventfd on
    /// `memory.oom_control`; v2 an inotify watch of `memory.events` (any
    /// counter change; compare ``memoryEvents()``). A v1 eventfd also fires
    /// once when the group is removed: drop the source before ``remove()``.
    public func oomEvents() throws(CgroupError) -> CgroupEventSource {
        try backend.oomEvents(of: name)
    }

    /// v1: fires each time usage crosses `bytes` in either direction (the
    /// pressure monitor's watermarks). Unsupported on v2: use
    /// ``pressureTrigger(_:)`` or `memory_high` events there.
    public func usageThreshold(_ bytes: UInt64) throws(CgroupError) -> CgroupEventSource {
        try backend.usageThreshold(bytes, of: name)
    }

    /// v1: fires when reclaim in the group reaches `level`. Unsupported on v2.
    public func pressureLevel(_ level: MemoryPressureLevel) throws(CgroupError) -> CgroupEventSource {
        try backend.pressureLevel(level, of: name)
    }

    /// v2: a PSI trigger on the group's `memory.pressure`. Unsupported on v1:
    /// use ``CgroupEventSource/systemMemoryPressure(_:)``.
    public func pressureTrigger(_ rule: PressureTriggerRule) throws(CgroupError) -> CgroupEventSource {
        try backend.pressureTrigger(rule, of: name)
    }

    /// v2: fires when `cgroup.events` changes (e.g. to `populated 0`); `nil`
    /// on v1, where the caller re-checks ``isEmpty()`` after child exits.
    public func populationWatch() throws(CgroupError) -> CgroupEventSource? {
        try backend.populationWatch(of: name)
    }
}
