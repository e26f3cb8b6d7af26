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

/// The watermarks of the memory budget (`memory_budget`, `pressure.warn`, `pressure.low`,
/// `pressure.critical`).
///
/// There is deliberately no hysteresis: the daemon kills one victim, waits,
/// and classifies again, so leaving a level at the same watermark that
/// entered it kills the fewest processes; a lower exit mark would only add
/// kills. Usage oscillating around a watermark costs re-evaluations, not kills.
public struct PressureThresholds: Sendable, Hashable, Codable {
    /// Usage at or above this many bytes warns every running extension (no kill).
    public var warnBytes: UInt64
    /// Usage at or above this many bytes is `low` pressure.
    public var lowBytes: UInt64
    /// Usage at or above this many bytes is `critical` pressure.
    public var criticalBytes: UInt64

    /// Watermarks at the shares `warn`, `low` and `critical` (in 0...1) of `budget` bytes,
    /// rounded down. Shares outside 0...1 are clamped. Without `warn`: 75%, or 90% of `low`
    /// when that is less.
    public init(budget: UInt64, warn: Double? = nil, low: Double, critical: Double) {
        warnBytes = Self.share(warn ?? Self.defaultWarn(low: low), of: budget)
        lowBytes = Self.share(low, of: budget)
        criticalBytes = Self.share(critical, of: budget)
    }

    /// Working sets at or above this many bytes are within the re-check band below
    /// `lowBytes`: close enough that the daemon re-checks them shortly after deciding
    /// "nothing" instead of waiting for the kernel, which announces a crossing of a usage
    /// figure (cache included) but never one of the working set itself.
    public var recheckBytes: UInt64 {
        lowBytes - min(lowBytes, max(Self.minimumRecheckBand, lowBytes / 32))
    }

    /// The re-check band is 1/32 of the low watermark, and at least this many bytes.
    public static let minimumRecheckBand: UInt64 = 4 << 20

    /// Whether a working set of `workingSet` bytes must be re-checked shortly: it is
    /// within the band below `lowBytes`, or past it (a victim may become eligible later).
    /// Below the band the daemon waits for the kernel's notifications alone.
    public func needsRecheck(workingSet: UInt64) -> Bool {
        workingSet >= recheckBytes
    }

    /// The pressure level at `usage` bytes.
    public func level(forUsage usage: UInt64) -> PressureLevel {
        if usage >= criticalBytes { return .critical }
        if usage >= lowBytes { return .low }
        return .none
    }

    /// `pressure.warn` when it is not configured.
    public static func defaultWarn(low: Double) -> Double {
        min(0.75, low * 0.9)
    }

    private static func share(_ fraction: Double, of budget: UInt64) -> UInt64 {
        // NaN fails both comparisons and counts as 1: an invalid share never kills early.
        let clamped = fraction < 0 ? 0 : (fraction < 1 ? fraction : 1)
        let bytes = (Double(budget) * clamped).rounded(.down)
        // Double(budget) may round up past the budget; stay within it (and within UInt64).
        return bytes >= Double(budget) ? budget : UInt64(bytes)
    }
}
