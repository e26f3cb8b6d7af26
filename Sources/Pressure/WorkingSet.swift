import Cgroup
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
/// Cache that is reclaimable but hot makes tasks stall instead, which is what the
/// `pressure.psi` trigger is for. The active/inactive lists are no guide here: cgroup
/// reclaim parks dirty pages on the active list until their writeback ends.
/// ``WorkingSetReader`` reads it (and says when, on v2, the usage counts whole).
enum WorkingSet {
    /// A reading of a group's memory.
    typealias Reading = MemoryReading

    /// The reading from the usage read before `memory.stat`, its text, and the usage read after.
    static func reading(usage: UInt64, stat: some StringProtocol, usageAfter: UInt64, version: CgroupVersion) -> Reading {
        Reading(usage: usage, workingSet: bytes(usage: min(usage, usageAfter), stat: stat, version: version))
    }

    /// The working set for `usage` and the group's `memory.stat` text.
    static func bytes(usage: UInt64, stat: some StringProtocol, version: CgroupVersion) -> UInt64 {
        // v1 reports the hierarchy's totals under `total_`; v2's figures are hierarchical.
        let names = version == .v1 ? ["total_cache", "total_shmem", "total_mapped_file"] : ["file", "shmem", "file_mapped"]
        let fields = values(of: names, inStat: stat)
        let cache = fields[0] ?? 0
        let pinned = (fields[1] ?? 0) + (fields[2] ?? 0)
        let unmappedCache = cache > pinned ? cache - pinned : 0
        return usage > unmappedCache ? usage - unmappedCache : 0
    }

    /// The values of `keys` in a `memory.stat` or `memory.events` text (`key value` lines; `nil`: no such line,
    /// or no number), found in its bytes: the other forty-odd lines are not made into
    /// strings, which cost milliseconds per reading on the pressure path in the emulated VM.
    static func values(of keys: [String], inStat text: some StringProtocol) -> [UInt64?] {
        var values = [UInt64?](repeating: nil, count: keys.count)
        let keyBytes = keys.map { Array($0.utf8) }
        var line = text.utf8[...]
        while !line.isEmpty {
            let end = line.firstIndex(of: UInt8(ascii: "\n")) ?? line.endIndex
            if let space = line[..<end].firstIndex(of: UInt8(ascii: " ")),
                let index = keyBytes.firstIndex(where: { $0.elementsEqual(line[..<space]) })
            {
                values[index] = number(line[line.index(after: space)..<end])
            }
            line = end == line.endIndex ? line[end...] : line[line.index(after: end)...]
        }
        return values
    }

    /// The decimal number the bytes spell, `nil` when they are not one or it overflows.
    private static func number(_ digits: some Collection<UInt8>) -> UInt64? {
        guard !digits.isEmpty else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
