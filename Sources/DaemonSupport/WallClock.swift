import Glibc

/// Wall-clock timestamps for logs and events (UTC).
package enum WallClock {
    /// Milliseconds since the Unix epoch.
    package static func nowMilliseconds() -> Int64 {
        nowMicroseconds() / 1000
    }

    /// Microseconds since the Unix epoch.
    package static func nowMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    /// `2026-11-22T07:20:01.123Z`.
    package static func iso8601(milliseconds: Int64 = nowMilliseconds()) -> String {
        format(seconds: milliseconds / 1000, fraction: milliseconds % 1000, digits: 3)
    }

    /// `2026-11-22T07:20:01.123456Z`: fixed width, so these sort as text in time order
    /// (output lines of two streams are merged that way).
    package static func iso8601(microseconds: Int64) -> String {
        format(seconds: microseconds / 1_000_000, fraction: microseconds % 1_000_000, digits: 6)
    }

    private static func format(seconds: Int64, fraction: Int64, digits: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int64, _ width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int64(parts.tm_year) + 1900, 4))-\(pad(Int64(parts.tm_mon) + 1))-\(pad(Int64(parts.tm_mday)))T"
            + "\(pad(Int64(parts.tm_hour))):\(pad(Int64(parts.tm_min))):\(pad(Int64(parts.tm_sec))).\(pad(fraction, digits))Z"
    }
}
