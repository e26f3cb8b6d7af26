import Cgroup
import Glibc

/// The memory of a cgroup that counts against `memory_budget`: its usage minus the
/// inactive file cache, which the kernel reclaims before anything else (the figure
/// kubelet evicts on). Usage alone counts cache that a host's file reads fill up to
/// the tree's hard limit and that costs nothing to drop: it would make every
/// extension look like a burden on an idle machine.
enum WorkingSet {
    /// The working set of `group`, or its plain usage when `memory.stat` cannot be read;
    /// `nil` when even the usage cannot be read.
    static func bytes(of group: ControlGroup) -> UInt64? {
        guard let usage = try? group.memoryUsage() else { return nil }
        let key = group.version == .v1 ? "total_inactive_file" : "inactive_file"
        guard let stat = read(group.description + "/memory.stat"), let inactive = value(of: key, inStat: stat) else { return usage }
        return usage > inactive ? usage - inactive : 0
    }

    /// The value of `key` in a `memory.stat` text (`key value` lines).
    static func value(of key: String, inStat text: some StringProtocol) -> UInt64? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[0] == key { return UInt64(fields[1]) }
        }
        return nil
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
