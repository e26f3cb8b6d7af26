/// Warnings before kills: every running extension is told once when the tree's working
/// set crosses the `warn` watermark upwards, so that it can free memory before the `low`
/// watermark makes the daemon kill. The next warning needs a reading below `warn` first
/// (one warning per crossing, however many readings stay above it).
public struct PressureWarning: Sendable, Hashable {
    /// Whether the last reading was at or above `warn`.
    public private(set) var isAboveWarn = false

    /// No crossing seen yet.
    public init() {}

    /// Takes a reading of the working set; true when it crossed `warn` upwards since the last
    /// reading below it, that is, when the extensions must be warned now.
    public mutating func observe(workingSet: UInt64, thresholds: PressureThresholds) -> Bool {
        let above = workingSet >= thresholds.warnBytes
        defer { isAboveWarn = above }
        return above && !isAboveWarn
    }
}
