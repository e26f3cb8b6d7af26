#if canImport(Glibc)
import Glibc
#endif

/// CPU time this process has consumed, from `getrusage(RUSAGE_SELF)`.
public struct ProcessCPUTime: Equatable, Sendable {
    /// Time spent running the process's own code.
    public let user: Duration
    /// Time the kernel spent on its behalf.
    public let system: Duration
    /// `user + system`.
    public var total: Duration { user + system }

    /// The CPU time of the calling process, all threads included.
    public static func current() -> ProcessCPUTime {
        var usage = rusage()
        // RUSAGE_SELF with a valid pointer cannot fail.
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return ProcessCPUTime(user: duration(usage.ru_utime), system: duration(usage.ru_stime))
    }

    private static func duration(_ time: timeval) -> Duration {
        .seconds(time.tv_sec) + .microseconds(time.tv_usec)
    }
}
