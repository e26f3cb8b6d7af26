import Cgroup
import DaemonSupport
import ExtensiondPolicy
import Glibc

/// The memory of a cgroup that counts against `memory_budget`: its usage minus the page
/// cache no process maps (file data read or written through system calls), which the
/// kernel can always drop or write back. Usage alone counts cache that a host's file
/// writes and reads fill up to the tree's hard limit: it would make every extension
/// look like a burden on an idle machine.
///
/// What stays counted is anonymous memory, shared memory (tmpfs, which cannot be dropped),
/// mapped files (the code and mapped data of running processes) and kernel memory.
///
/// On v2, while the `supervised` group's usage is at or past its `memory.high` (the daemon's
/// throttle where the tree reaches `low`), the tree's usage counts whole: the kernel
/// reclaims there before it lets usage through, so the cache it has not dropped is cache it
/// cannot drop fast enough, and meanwhile it stalls whoever allocates. Without this, a
/// growing extension was held at the throttle, its working set that cache below `low`, for
/// up to 1.1 s before it became a victim (bench/README.md, "oom").
/// Cache that is reclaimable but hot makes tasks stall instead, which is what the
/// `pressure.psi` trigger is for. The active/inactive lists are no guide here: cgroup
/// reclaim parks dirty pages on the active list until their writeback ends.
enum WorkingSet {
    /// A reading of a group's memory.
    typealias Reading = MemoryReading

    /// The usage and working set of the tree's root (the plain usage when `memory.stat`
    /// cannot be read); `nil` when even the usage cannot be read.
    static func read(_ tree: CgroupTree) -> Reading? {
        let root = tree.root
        guard let usage = try? root.memoryUsage() else { return nil }
        guard let stat = FileSystem.read(root.description + "/memory.stat").map({ String(decoding: $0, as: UTF8.self) }) else {
            return Reading(usage: usage, workingSet: usage)
        }
        let throttled = tree.supervised.map(isAtThrottle) ?? false
        return Reading(usage: usage, workingSet: bytes(usage: usage, stat: stat, version: root.version, atThrottle: throttled))
    }

    /// The working set for `usage` and the group's `memory.stat` text; `atThrottle`: v2,
    /// the throttle below it holds usage back (usage counts whole).
    static func bytes(usage: UInt64, stat: some StringProtocol, version: CgroupVersion, atThrottle: Bool = false) -> UInt64 {
        if atThrottle { return usage }
        let fields = values(inStat: stat)
        // v1 reports the hierarchy's totals under `total_`; v2's figures are hierarchical.
        let names =
            version == .v1
            ? (cache: "total_cache", shared: "total_shmem", mapped: "total_mapped_file")
            : (cache: "file", shared: "shmem", mapped: "file_mapped")
        let cache = fields[names.cache] ?? 0
        let pinned = (fields[names.shared] ?? 0) + (fields[names.mapped] ?? 0)
        let unmappedCache = cache > pinned ? cache - pinned : 0
        return usage > unmappedCache ? usage - unmappedCache : 0
    }

    /// Whether `group`'s usage is at or past its `memory.high` (`false` without one, or
    /// when either cannot be read).
    private static func isAtThrottle(_ group: ControlGroup) -> Bool {
        guard let high = try? group.memoryHigh(), let usage = try? group.memoryUsage() else { return false }
        return usage >= high
    }

    /// The `key value` lines of a `memory.stat` text.
    static func values(inStat text: some StringProtocol) -> [String: UInt64] {
        var values: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let value = UInt64(fields[1]) { values[String(fields[0])] = value }
        }
        return values
    }
}
