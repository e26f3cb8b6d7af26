import Foundation

/// The resident set of process `pid` (`VmRSS` of /proc/PID/status) in bytes; nil when
/// the process is gone or the line is missing.
public func residentBytes(of pid: pid_t) -> UInt64? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kibibytes = UInt64(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return nil }
    return kibibytes * 1024
}

extension TestDaemon {
    /// The daemon's resident set in bytes; nil when it is not running.
    public var residentBytes: UInt64? {
        process.flatMap { ExtensiondTestSupport.residentBytes(of: $0.pid) }
    }
}
