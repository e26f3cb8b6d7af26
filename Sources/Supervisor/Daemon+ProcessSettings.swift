import Glibc
import Logging

/// The daemon's own process settings, made at start: its scheduling priority and its
/// file-descriptor limit.
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
}
