/// The largest values the daemon can run, so that the checker refuses what would
/// overflow later (docs/CONFIG.md, "Value types").
public enum ValueRanges {
    /// 100 years: durations are added to instants counted in `Int64` nanoseconds, about
    /// 292 years from the daemon's start.
    public static let longestDuration: Duration = .seconds(36_500 * 86_400)
    /// 1 EiB: sizes are summed over processes (in `UInt64`) and written to cgroup files.
    public static let largestSize = ByteSize(1 << 60)
    /// The kernel's `PID_MAX_LIMIT`: `pids.max` refuses more.
    public static let pidsMax = 1...4_194_304
    /// Rotated log files per stream: each rotation renames them one by one.
    public static let logFiles = 1...100
    /// Failed starts in a row that are retried.
    public static let restartRetries = 0...1000
    /// `daily_budget` and `budget_burst`: more than one scheduled refresh per 100 ms
    /// would not be a budget.
    public static let refreshTokens = 1...1_000_000
}
