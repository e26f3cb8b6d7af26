/// Full-jitter exponential backoff.
///
/// Attempt `n` (1-based) waits a duration drawn uniformly from
/// `0...min(cap, base · 2^(n−1))`. Spreading retries over the whole range
/// (rather than around the ceiling) keeps many failing clients from retrying
/// in lockstep. The ceiling never overflows, whatever `n`.
public struct Backoff: Sendable, Hashable, Codable {
    /// The ceiling of the first attempt.
    public var base: Duration
    /// The largest ceiling of any attempt.
    public var cap: Duration

    /// A backoff starting at `base` and doubling up to `cap`. Negative lengths count as zero.
    public init(base: Duration, cap: Duration) {
        self.base = base
        self.cap = cap
    }

    /// `min(cap, base · 2^(attempt−1))`; attempts below 1 count as 1.
    public func ceiling(forAttempt attempt: Int) -> Duration {
        .cappedDoubling(base, doublings: attempt - 1, cap: cap)
    }

    /// The wait before `attempt`: uniform in `0...ceiling(forAttempt: attempt)`.
    public func delay(forAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        .random(upTo: ceiling(forAttempt: attempt), using: &generator)
    }
}
