import Cgroup
import Glibc

/// The memory of a cgroup that counts against `memory_budget`: its usage minus the file
/// cache that reclaim takes first. Usage alone counts cache that a host's file writes
/// and reads fill up to the tree's hard limit and that costs little to drop: it would
/// make every extension look like a burden on an idle machine.
///
/// Reclaimable cache is the inactive file list (kubelet's working set stops there) plus
/// dirty and writeback file pages up to the size of the active list: cgroup reclaim
/// moves a dirty page it meets to the active list until its writeback ends, so a host
/// writing a file would otherwise look like it grew by its dirty pages.
enum WorkingSet {
    /// The working set of `group`, or its plain usage when `memory.stat` cannot be read;
    /// `nil` when even the usage cannot be read.
    static func bytes(of group: ControlGroup) -> UInt64? {
        guard let usage = try? group.memoryUsage() else { return nil }
        guard let stat = read(group.description + "/memory.stat") else { return usage }
        return bytes(usage: usage, stat: stat, version: group.version)
    }

    /// The working set for `usage` and the group's `memory.stat` text.
    static func bytes(usage: UInt64, stat: some StringProtocol, version: CgroupVersion) -> UInt64 {
        // v1 reports the hierarchy's totals under `total_`; v2's figures are hierarchical.
        let prefix = version == .v1 ? "total_" : ""
        let fields = values(inStat: stat)
        func field(_ name: String) -> UInt64 { fields[prefix + name] ?? 0 }
        let waitingForWriteback = min(field("active_file"), field(version == .v1 ? "dirty" : "file_dirty") + field(version == .v1 ? "writeback" : "file_writeback"))
        let reclaimable = field("inactive_file") + waitingForWriteback
        return usage > reclaimable ? usage - reclaimable : 0
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

    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[..<count]
        }
    }
}
