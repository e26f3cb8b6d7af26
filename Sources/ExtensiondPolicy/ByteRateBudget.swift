/// A rate of bytes with a burst, for output a process may have captured: in any window of
/// length `t` at most `burst + bytesPerSecond · t` bytes are taken. Full at creation.
///
/// The level is kept exactly, in units of a byte per nanosecond-per-second (every elapsed
/// nanosecond adds `bytesPerSecond` units, one byte is 10⁹ units), so no rounding drift
/// accumulates however often it is read. Arithmetic saturates: any values are safe.
public struct ByteRateBudget: Sendable, Equatable {
    public let bytesPerSecond: Int
    public let burst: Int
    private var level: Int64
    private var updatedAt: Instant

    private static let unitsPerByte: Int64 = 1_000_000_000

    /// A full budget; negative figures count as zero.
    public init(bytesPerSecond: Int, burst: Int, now: Instant) {
        self.bytesPerSecond = max(0, bytesPerSecond)
        self.burst = max(0, burst)
        updatedAt = now
        level = 0
        level = capacity
    }

    /// The bytes that may be taken at `now`.
    public func available(at now: Instant) -> Int {
        Int(level(at: now) / Self.unitsPerByte)
    }

    /// Takes up to `count` bytes at `now`; returns how many were granted.
    public mutating func take(_ count: Int, at now: Instant) -> Int {
        level = level(at: now)
        updatedAt = max(now, updatedAt)
        let granted = min(max(0, count), Int(level / Self.unitsPerByte))
        level -= Int64(granted) * Self.unitsPerByte
        return granted
    }

    /// The first instant at or after `now` when `count` bytes (at most `burst`) are
    /// available; `nil` when they never will be (no rate, or more than the burst).
    public func instant(whenAvailable count: Int, at now: Instant) -> Instant? {
        let wanted = Int64(clamping: max(0, count)).multipliedReportingOverflow(by: Self.unitsPerByte)
        guard !wanted.overflow, wanted.partialValue <= capacity else { return nil }
        let start = max(now, updatedAt)
        let missing = wanted.partialValue - level(at: start)
        if missing <= 0 { return start }
        guard bytesPerSecond > 0 else { return nil }
        let rate = Int64(bytesPerSecond)
        return start + .nanoseconds(missing / rate + (missing % rate == 0 ? 0 : 1))
    }

    private var capacity: Int64 {
        let (units, overflow) = Int64(burst).multipliedReportingOverflow(by: Self.unitsPerByte)
        return overflow ? .max : units
    }

    /// The level at `now`: time before the last update (a clock gone back) adds nothing.
    private func level(at now: Instant) -> Int64 {
        let elapsed = now.nanoseconds.saturatingSubtract(updatedAt.nanoseconds)
        guard elapsed > 0 else { return level }
        let (added, overflow) = elapsed.multipliedReportingOverflow(by: Int64(bytesPerSecond))
        return overflow ? capacity : min(capacity, level.saturatingAdd(added))
    }
}
