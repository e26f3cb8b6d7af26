import Glibc

/// The local wall-clock time as `HH:MM:SS`, the prefix of every line the panel prints.
enum TimeOfDay {
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return [parts.tm_hour, parts.tm_min, parts.tm_sec].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }
}
