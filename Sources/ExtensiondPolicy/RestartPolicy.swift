/// When to restart a supervised host or app that exited, and when to give up.
///
/// A run shorter than `startThreshold` is a *failed start*. Consecutive failed
/// starts back off exponentially (full jitter); once there have been more than
/// `maxRetries` of them in a row the process is `fatal` and stays down until
/// started again by hand (``reset()``). A run of at least `startThreshold`
/// proves the process can start, so its exit begins a new series.
///
/// The delay before the restart that follows failed start `k` of a series is
/// drawn from backoff attempt `k + 1`; after a long run it is attempt 1.
public struct RestartPolicy: Sendable, Hashable, Codable {
    /// The delays between restarts.
    public var backoff: Backoff
    /// A run at least this long counts as a successful start.
    public var startThreshold: Duration
    /// How many failed starts in a row are retried; one more is fatal.
    public var maxRetries: Int
    /// Failed starts in a row so far.
    public private(set) var failedStarts: Int = 0

    /// The DESIGN defaults for supervised processes: restarts within about a
    /// second at first, at most a minute apart, fatal after 5 retries.
    public init(
        backoff: Backoff = Backoff(base: .seconds(1), cap: .seconds(60)),
        startThreshold: Duration = .seconds(1),
        maxRetries: Int = 5
    ) {
        self.backoff = backoff
        self.startThreshold = startThreshold
        self.maxRetries = maxRetries
    }

    /// What to do after the process exited having run for `runTime`.
    public mutating func processExited(
        afterRunning runTime: Duration,
        using generator: inout some RandomNumberGenerator
    ) -> RestartDecision {
        if runTime >= startThreshold {
            failedStarts = 0
        } else {
            failedStarts = min(failedStarts, maxRetries) + 1
        }
        guard failedStarts <= maxRetries else { return .fatal }
        return .restart(after: backoff.delay(forAttempt: failedStarts + 1, using: &generator))
    }

    /// Forgets the failed starts: the process was started again by hand.
    public mutating func reset() {
        failedStarts = 0
    }
}

/// The outcome of ``RestartPolicy/processExited(afterRunning:using:)``.
public enum RestartDecision: Sendable, Hashable {
    /// Start the process again after this delay.
    case restart(after: Duration)
    /// Too many failed starts in a row: leave the process down until started by hand.
    case fatal
}
