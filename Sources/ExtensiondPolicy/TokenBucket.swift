/// The scheduled-refresh budget of one extension: `dailyBudget` tokens per
/// 24 hours, refilled continuously, holding at most `burst`.
///
/// Guarantee: in any window of length `w`, at most
/// `burst + ⌊dailyBudget · w / 24h⌋` tokens are taken; in particular at most
/// `burst + dailyBudget` in any 24 hours.
///
/// The level is kept exactly, in integer units where one token is one day
/// in nanoseconds and every elapsed nanosecond adds `dailyBudget` units; no
/// rounding drift accumulates however often the bucket is read. It is
/// `Codable` so the daemon can persist it; instants are those of the clock
/// that wrote it (see ``RefreshRecord/rebased(by:)``).
public struct TokenBucket: Sendable, Hashable, Codable {
    /// Tokens added per 24 hours.
    public private(set) var dailyBudget: Int
    /// The most tokens the bucket holds.
    public private(set) var burst: Int
    /// The level at `updatedAt`, in units of `1 / unitsPerToken` tokens.
    private var level: Int64
    private var updatedAt: Instant

    private static let unitsPerToken: Int64 = 86_400 * 1_000_000_000

    /// A full bucket. Negative budgets count as zero.
    public init(dailyBudget: Int, burst: Int, now: Instant) {
        self.dailyBudget = max(0, dailyBudget)
        self.burst = max(0, burst)
        self.updatedAt = now
        self.level = 0
        self.level = capacity
    }

    /// Whole tokens available at `now`.
    public func tokens(at now: Instant) -> Int {
        Int(level(at: now) / Self.unitsPerToken)
    }

    /// Takes one token if one is available at `now`.
    public mutating func tryTake(at now: Instant) -> Bool {
        settle(at: now)
        guard level >= Self.unitsPerToken else { return false }
        level -= Self.unitsPerToken
        return true
    }

    /// The first instant at or after `now` when a token is available; `nil`
    /// when none ever will be (a zero budget or burst).
    public func nextAvailable(at now: Instant) -> Instant? {
        if level(at: now) >= Self.unitsPerToken { return now }
        guard dailyBudget > 0, capacity >= Self.unitsPerToken else { return nil }
        // Refill runs from the later of `now` and the last update (the clock may have gone back).
        let refillStart = max(now, updatedAt)
        let missing = Self.unitsPerToken - level(at: refillStart)
        let rate = Int64(dailyBudget)
        return refillStart + .nanoseconds((missing + rate - 1) / rate)
    }

    /// Changes the budget from `now` on, keeping the tokens already earned
    /// (at most the new `burst`).
    public mutating func reconfigure(dailyBudget: Int, burst: Int, at now: Instant) {
        settle(at: now)
        self.dailyBudget = max(0, dailyBudget)
        self.burst = max(0, burst)
        level = min(level, capacity)
    }

    /// The same bucket on a clock whose readings are `offset` later.
    func rebased(by offset: Duration) -> TokenBucket {
        var bucket = self
        bucket.updatedAt = updatedAt + offset
        return bucket
    }

    private var capacity: Int64 {
        Int64(burst).saturatingMultiply(Self.unitsPerToken)
    }

    private func level(at now: Instant) -> Int64 {
        // A clock that went backwards adds nothing rather than taking tokens away.
        let elapsed = max(0, (now - updatedAt).saturatingNanoseconds)
        return min(capacity, level.saturatingAdd(elapsed.saturatingMultiply(Int64(dailyBudget))))
    }

    private mutating func settle(at now: Instant) {
        level = level(at: now)
        updatedAt = max(updatedAt, now)
    }

    private enum CodingKeys: String, CodingKey {
        case dailyBudget, burst, level, updatedAt
    }

    /// Decodes a persisted bucket, rejecting values no bucket can hold.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        dailyBudget = try container.decode(Int.self, forKey: .dailyBudget)
        burst = try container.decode(Int.self, forKey: .burst)
        level = try container.decode(Int64.self, forKey: .level)
        updatedAt = try container.decode(Instant.self, forKey: .updatedAt)
        guard dailyBudget >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .dailyBudget, in: container, debugDescription: "dailyBudget \(dailyBudget) is negative")
        }
        guard burst >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .burst, in: container, debugDescription: "burst \(burst) is negative")
        }
        guard (0...capacity).contains(level) else {
            throw DecodingError.dataCorruptedError(
                forKey: .level, in: container, debugDescription: "level \(level) is outside 0...\(capacity)")
        }
    }
}
