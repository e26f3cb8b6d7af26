import ExtensiondConfig
import Glibc
import Logging

/// The daemon's own process settings, made at start: its scheduling priority, its
/// file-descriptor limit and the size of its descriptor table.
extension Daemon {
    /// The pressure response must run within 100 ms of a crossing on a CPU that busy
    /// processes share (as lmkd runs above the apps it kills): the daemon takes nice
    /// ``niceValue``, and reset-on-fork gives every process it starts the default nice 0.
    /// Without CAP_SYS_NICE it keeps its nice and says so.
    static func raiseSchedulingPriority(logger: Logger) {
        // SCHED_RESET_ON_FORK (sched.h, not imported into Swift).
        let resetOnFork: Int32 = 0x4000_0000
        var parameters = sched_param(sched_priority: 0)
        guard sched_setscheduler(0, SCHED_OTHER | resetOnFork, &parameters) == 0 else {
            logger.notice("scheduling: keeps its nice, reset-on-fork refused: \(String(cString: strerror(errno)))")
            return
        }
        if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceValue) != 0 {
            logger.notice("scheduling: keeps its nice (\(niceValue) needs CAP_SYS_NICE): \(String(cString: strerror(errno)))")
        }
    }

    /// The daemon's nice value.
    static let niceValue: Int32 = -10

    /// Each running extension holds a few fds (pidfd, output pipe, socket, notification): take the hard limit rather than the 1024 soft default.
    static func raiseFileLimit() {
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    /// Descriptors the daemon holds for each process while it runs (pidfd, output pipes,
    /// socket, OOM notification and the like: 7 per ready extension) and ahead of it (its
    /// sandbox's ruleset).
    static let descriptorsPerProcess = 8

    /// Grows the descriptor table to hold every configured process running at once. The
    /// kernel grows it by doubling when a descriptor past its end is opened, and while
    /// another thread or a spawned child shares it, each growth first waits for an RCU
    /// grace period, which fell inside the first launch of 200 extensions (bench/README.md,
    /// "The launch floor, seventh pass"). At the start no other thread exists yet; after a
    /// reload that adds processes, one wait at most.
    static func reserveDescriptorTable(for configuration: Configuration) {
        let processes = configuration.hosts.count + configuration.apps.count + configuration.extensions.count
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let highest = min(64 + descriptorsPerProcess * processes, Int(clamping: limit.rlim_cur) - 1)
        let source = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { return }
        defer { Glibc.close(source) }
        // The lowest free descriptor at or above `highest`: the table is grown to hold it.
        let reserved = fcntl(source, F_DUPFD_CLOEXEC, Int32(clamping: highest))
        if reserved >= 0 { Glibc.close(reserved) }
    }
}
