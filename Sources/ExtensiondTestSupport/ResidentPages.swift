import Foundation

/// Resident KiB of a process's mappings that are not writable, of the files `matches`
/// accepts (by path), from `/proc/PID/smaps`: what `ext_release_read_only_pages` drops.
public func residentReadOnlyKiB(of pid: pid_t? = nil, file matches: (Substring) -> Bool) throws -> Int {
    // Read to the end: String(contentsOfFile:) stops at the first page of a procfs file.
    let path = "/proc/\(pid.map(String.init) ?? "self")/smaps"
    guard let handle = FileHandle(forReadingAtPath: path), let bytes = try handle.readToEnd() else {
        throw TestSupportError("cannot read \(path)")
    }
    let smaps = String(decoding: bytes, as: UTF8.self)
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
