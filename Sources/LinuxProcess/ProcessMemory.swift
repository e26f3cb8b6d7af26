#if canImport(Glibc)
import Glibc
#endif

/// The resident memory of one process, from `/proc/PID/status`.
public struct ProcessMemory: Equatable, Sendable {
    /// `VmRSS`: all resident pages (anonymous, file-backed and shared memory).
    public let residentBytes: UInt64
    /// `RssAnon`: resident anonymous pages, the memory the process itself allocated.
    public let anonymousBytes: UInt64

    /// Creates a reading from byte counts.
    public init(residentBytes: UInt64, anonymousBytes: UInt64) {
        self.residentBytes = residentBytes
        self.anonymousBytes = anonymousBytes
    }

    /// Reads the memory of `pid` (`nil`: this process).
    public static func read(pid: pid_t? = nil) throws(ProcessError) -> ProcessMemory {
        let path = "/proc/\(pid.map(String.init) ?? "self")/status"
        return try parse(status: readKernelFile(path), path: path)
    }

    /// Parses the text of a `/proc/PID/status` file; `path` names it in errors.
    static func parse(status: String, path: String) throws(ProcessError) -> ProcessMemory {
        var resident: UInt64?
        var anonymous: UInt64?
        for line in status.split(separator: "\n") {
            if line.hasPrefix("VmRSS:") {
                resident = kibibytes(line.dropFirst("VmRSS:".count))
            } else if line.hasPrefix("RssAnon:") {
                anonymous = kibibytes(line.dropFirst("RssAnon:".count))
            }
        }
        // Kernel threads and zombies have no memory lines.
        guard let resident, let anonymous else {
            throw .malformed(path: path, expected: "VmRSS and RssAnon lines (\"VmRSS: <n> kB\")")
        }
        return ProcessMemory(residentBytes: resident, anonymousBytes: anonymous)
    }

    /// `"   1234 kB"` in bytes.
    private static func kibibytes(_ field: Substring) -> UInt64? {
        let parts = field.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 2, parts[1] == "kB", let value = UInt64(parts[0]) else { return nil }
        return value * 1024
    }
}
