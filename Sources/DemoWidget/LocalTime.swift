#if canImport(Glibc)
import Glibc
#endif

/// The current local time, formatted with `strftime` (no Foundation in the widget).
struct LocalTime {
    /// `07:30:05`
    var clock: String
    /// `Sun 22 Nov 2026`
    var date: String

    /// Seconds since the epoch now.
    static var nowSeconds: time_t { time(nil) }

    static func now() -> LocalTime { at(nowSeconds) }

    /// The local time at `seconds` since the epoch.
    static func at(_ seconds: time_t) -> LocalTime {
        var seconds = seconds
        var parts = tm()
        localtime_r(&seconds, &parts)
        return LocalTime(clock: format("%H:%M:%S", parts), date: format("%a %d %b %Y", parts))
    }

    private static func format(_ pattern: String, _ parts: tm) -> String {
        var parts = parts
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
