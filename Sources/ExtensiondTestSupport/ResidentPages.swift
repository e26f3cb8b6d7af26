import Foundation

/// Resident KiB of a process's mappings that are not writable, of the files `matches`
/// accepts (by path), from `/proc/PID/smaps`: what `ext_release_read_only_pages` drops.
public func residentReadOnlyKiB(of pid: pid_t? = nil, file matches: (Substring) -> Bool) throws -> Int {
    let path = "/proc/\(pid.map(String.init) ?? "self")/smaps"
    guard let smaps = readTextFile(path) else { throw TestSupportError("cannot read \(path)") }
    var total = 0
    var counting = false
    for line in smaps.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if let first = fields.first, !first.hasSuffix(":") {
            counting = fields.count > 5 && matches(fields[5]) && !fields[1].contains("w")
        } else if counting, fields.first == "Rss:", fields.count > 1, let kib = Int(fields[1]) {
            total += kib
        }
    }
    return total
}
