/// The refresh and throttling settings of one extension (DESIGN §4), with
/// the DESIGN defaults. The daemon maps its configuration onto this.
///
/// Lengths are read as whole nanoseconds; negative ones count as zero.
public struct RefreshParameters: Sendable, Hashable, Codable {
    /// The normal time between scheduled refreshes.
    public var interval: Duration
    /// No scheduled refresh starts closer than this to the previous update start, whatever the hint.
    public var minInterval: Duration
    /// The random spread of scheduled refreshes; `nil`: 10% of `interval`, at most 5 minutes.
    public var jitter: Duration?
    /// How far `noData` in a row may stretch the interval.
    public var maxInterval: Duration
    /// A pull within this time of the last update start is answered from the cache.
    public var pullCooldown: Duration
    /// An update not answered within this time has failed.
    public var deadline: Duration
    /// Scheduled refreshes per 24 hours.
    public var dailyBudget: Int
    /// Scheduled refreshes that may be spent at once.
    public var budgetBurst: Int
    /// The first retry ceiling after a failure.
    public var backoffBase: Duration
    /// The largest retry ceiling.
    public var backoffMax: Duration

    /// Parameters with the DESIGN defaults for whatever is not given.
    public init(
        interval: Duration = .seconds(30 * 60),
        minInterval: Duration = .seconds(5 * 60),
        jitter: Duration? = nil,
        maxInterval: Duration = .seconds(4 * 3600),
        pullCooldown: Duration = .seconds(15),
        deadline: Duration = .seconds(10),
        dailyBudget: Int = 48,
        budgetBurst: Int = 6,
        backoffBase: Duration = .seconds(30),
        backoffMax: Duration = .seconds(3600)
    ) {
        self.interval = interval
        self.minInterval = minInterval
        self.jitter = jitter
        self.maxInterval = maxInterval
        self.pullCooldown = pullCooldown
        self.deadline = deadline
        self.dailyBudget = dailyBudget
        self.budgetBurst = budgetBurst
        self.backoffBase = backoffBase
        self.backoffMax = backoffMax
    }

    /// `jitter`, or its default: 10% of `interval`, at most 5 minutes.
    public var effectiveJitter: Duration {
        jitter ?? min(interval / 10, .seconds(5 * 60))
    }

    /// `interval` doubled once per `noData` in a row, up to `maxInterval`
    /// (never below `interval`).
    public func stretchedInterval(noDataInARow: Int) -> Duration {
        // What the doubling gives for none, without reading the cap: every pull asks.
        guard noDataInARow > 0 else { return .nanoseconds(interval.nonNegativeNanoseconds) }
        return .cappedDoubling(interval, doublings: noDataInARow, cap: max(interval, maxInterval))
    }

    /// The retry backoff after failures.
    public var backoff: Backoff {
        Backoff(base: backoffBase, cap: backoffMax)
    }
}
