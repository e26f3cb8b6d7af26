#if canImport(Glibc)
import Glibc
#endif

extension UnixTime {
    /// The wall-clock time now (`CLOCK_REALTIME`), for timeline dates and reload hints
    /// without Foundation's `Date()`.
    public static var now: UnixTime {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UnixTime(secondsSince1970: Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9)
    }
}
