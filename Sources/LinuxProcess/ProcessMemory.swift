#if canImport(Glibc)
import Glibc
#endif

/// The resident memory of one process, from `/proc/PID/status`.
public struct ProcessMemory: Equatable, Sendable {
    /// `VmRSS`: all resident pages (anonymous, file-backed and shared memory).
    public let residentBytes: UInt64
    /// `RssAnon`: resident anonymous pages, the memory the process itself allocated.
    public let anonymousBytes: UInt64
    /// `VmHWM`: the highest `VmRSS` of the process's life, kept by the kernel.
    public let peakResidentBytes: UInt64?

    /// Creates a reading from byte counts.
    public init(residentBytes: UInt64, anonymousBytes: UInt64, peakResidentBytes: UInt64? = nil) {
        self.residentBytes = residentBytes
        self.anonymousBytes = anonymousBytes
        self.peakResidentBytes = peakResidentBytes
    }

    /// Reads the memory of `pid` (`nil`: this process).
    public static func read(pid: pid_t? = nil) throws(ProcessError) -> ProcessMemory {
        let path = "/proc/\(pid.map(String.init) ?? "self")/status"
        return try parse(status: readKernelFile(path), path: path)
    }

    /// The size of the pages `/proc/PID/statm` counts in.
    public static let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))

    /// Parses the text of a `/proc/PID/status` file; `path` names it in errors.
    static func parse(status: String, path: String) throws(ProcessError) -> ProcessMemory {
        var resident: UInt64?
        var anonymous: UInt64?
        var peak: UInt64?
        // Bytes, not Strings: `status` of 200 processes is read for every status request.
        for line in status.utf8.split(separator: UInt8(ascii: "\n")) {
            if line.starts(with: "VmHWM:".utf8) {
                peak = kibibytes(line.dropFirst("VmHWM:".utf8.count))
            } else if line.starts(with: "VmRSS:".utf8) {
                resident = kibibytes(line.dropFirst("VmRSS:".utf8.count))
            } else if line.starts(with: "RssAnon:".utf8) {
                anonymous = kibibytes(line.dropFirst("RssAnon:".utf8.count))
            }
            if resident != nil && anonymous != nil { break }
        }
        // Kernel threads and zombies have no memory lines.
        guard let resident, let anonymous else {
            throw .malformed(path: path, expected: "VmRSS and RssAnon lines (\"VmRSS: <n> kB\")")
        }
        return ProcessMemory(residentBytes: resident, anonymousBytes: anonymous, peakResidentBytes: peak)
    }

    /// `"   1234 kB"` in bytes.
    private static func kibibytes(_ field: Substring.UTF8View.SubSequence) -> UInt64? {
        let parts = field.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
        guard parts.count == 2, parts[1].elementsEqual("kB".utf8), !parts[0].isEmpty,
            parts[0].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), parts[0].count <= 18
        else { return nil }
        return parts[0].reduce(0) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) } * 1024
    }
}
