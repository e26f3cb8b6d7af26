/// How hard the memory tree is pressed, which decides what may be killed.
public enum PressureLevel: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    /// Within the budget's low watermark: kill nothing.
    case none
    /// Past `pressure.low`: kill idle extensions.
    case low
    /// Past `pressure.critical`: kill active extensions and background apps too.
    case critical

    public static func < (lhs: PressureLevel, rhs: PressureLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// The watermarks of the memory budget (`memory_budget`, `pressure.low`,
/// `pressure.critical`).
///
/// There is deliberately no hysteresis: the daemon kills one victim, waits,
/// and classifies again, so leaving a level at the same watermark that
/// entered it kills the fewest processes; a lower exit mark would only add
/// kills. Usage oscillating around a watermark costs re-evaluations, not kills.
public struct PressureThresholds: Sendable, Hashable, Codable {
    /// Usage at or above this many bytes is `low` pressure.
    public var lowBytes: UInt64
    /// Usage at or above this many bytes is `critical` pressure.
    public var criticalBytes: UInt64

    /// Watermarks at the shares `low` and `critical` (in 0...1) of `budget` bytes,
    /// rounded down. Shares outside 0...1 are clamped.
    public init(budget: UInt64, low: Double, critical: Double) {
        lowBytes = Self.share(low, of: budget)
        criticalBytes = Self.share(critical, of: budget)
    }

    /// The pressure level at `usage` bytes.
    public func level(forUsage usage: UInt64) -> PressureLevel {
        if usage >= criticalBytes { return .critical }
        if usage >= lowBytes { return .low }
        return .none
    }

    private static func share(_ fraction: Double, of budget: UInt64) -> UInt64 {
        // NaN fails both comparisons and counts as 1: an invalid share never kills early.
        let clamped = fraction < 0 ? 0 : (fraction < 1 ? fraction : 1)
        let bytes = (Double(budget) * clamped).rounded(.down)
        // Double(budget) may round up past the budget; stay within it (and within UInt64).
        return bytes >= Double(budget) ? budget : UInt64(bytes)
    }
}
