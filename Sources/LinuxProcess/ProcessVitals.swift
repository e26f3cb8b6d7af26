#if canImport(Glibc)
import Glibc
#endif

/// The figures Prometheus client libraries export as `process_*` for the calling
/// process: start time, virtual size and descriptors (memory and CPU time have their
/// own types, ``ProcessMemory`` and ``ProcessCPUTime``).
public struct ProcessVitals: Equatable, Sendable {
    /// Seconds since the Unix epoch at which the process started.
    public let startTimeSeconds: Double
    /// `vsize`: the virtual memory size in bytes.
    public let virtualBytes: UInt64
    /// Descriptors open now.
    public let openDescriptors: Int
    /// The soft `RLIMIT_NOFILE`.
    public let maxDescriptors: UInt64

    /// Reads `/proc/self/stat` (start time in clock ticks since boot, vsize), `btime`
    /// of `/proc/stat`, `/proc/self/fd` and the descriptor limit.
    public static func current() throws(ProcessError) -> ProcessVitals {
        let statPath = "/proc/self/stat"
        let stat = try readKernelFile(statPath)
        // The command name in parentheses may contain spaces: fields count from the last ')'.
        guard let close = stat.lastIndex(of: ")") else { throw .malformed(path: statPath, expected: "pid (comm) state ...") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Field 22 is starttime and 23 vsize; `fields[0]` is field 3, the state.
        guard fields.count > 20, let ticks = UInt64(fields[19]), let virtualBytes = UInt64(fields[20]) else {
            throw .malformed(path: statPath, expected: "starttime and vsize in fields 22 and 23")
        }
        let bootPath = "/proc/stat"
        let boot = try readKernelFile(bootPath).split(separator: "\n").first { $0.hasPrefix("btime ") }
        guard let bootTime = boot.flatMap({ UInt64($0.dropFirst("btime ".count)) }) else {
            throw .malformed(path: bootPath, expected: "a \"btime N\" line")
        }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        return ProcessVitals(
            startTimeSeconds: Double(bootTime) + Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK))),
            virtualBytes: virtualBytes, openDescriptors: openDescriptorCount(), maxDescriptors: UInt64(limit.rlim_cur))
    }

    /// Entries of `/proc/self/fd`, less the one the listing itself opens.
    private static func openDescriptorCount() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != CChar(UInt8(ascii: ".")) { count += 1 }
        }
        return max(0, count - 1)
    }
}
