/// Durations in config spelling: whole numbers with units `d`, `h`, `m`, `s`, `ms`,
/// largest unit first and each at most once, e.g. `30s`, `5m`, `1h30m`, `150ms`.
extension Duration {
    /// The units in config spelling, largest first, in milliseconds.
    private static let configUnits: [(suffix: String, milliseconds: Int64)] = [
        ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1),
    ]

    /// What a duration must look like, for error messages.
    static let expectedForm = #"a duration such as "150ms", "30s", "5m", "1h30m" or "1d" (units ms, s, m, h, d)"#

    /// Parses the config spelling.
    ///
    /// - Throws: ``ValueSyntaxError`` naming the expected form; a number without a unit
    ///   (`"10"`) is an error, never silently seconds.
    public init(parsing text: String) throws(ValueSyntaxError) {
        let invalid = ValueSyntaxError("\"\(text)\" is not a duration; expected \(Self.expectedForm)")
        var rest = Substring(text)
        var milliseconds: Int64 = 0
        var nextUnit = Self.configUnits.startIndex
        guard !rest.isEmpty else { throw invalid }
        while !rest.isEmpty {
            guard let (value, afterNumber) = leadingDecimal(rest) else { throw invalid }
            let suffix = afterNumber.prefix { $0.isASCII && $0.isLetter }
            guard let unit = Self.configUnits[nextUnit...].firstIndex(where: { $0.suffix == suffix }) else {
                throw invalid
            }
            let (part, overflow) = Int64(clamping: value).multipliedReportingOverflow(
                by: Self.configUnits[unit].milliseconds)
            let (sum, sumOverflow) = milliseconds.addingReportingOverflow(part)
            guard value <= UInt64(Int64.max), !overflow, !sumOverflow else {
                throw ValueSyntaxError("\"\(text)\" is too long for a duration")
            }
            milliseconds = sum
            nextUnit = unit + 1
            rest = afterNumber[suffix.endIndex...]
        }
        self = .milliseconds(milliseconds)
    }

    /// The config spelling, largest unit first: `1h30m`, `150ms`, `0s`.
    ///
    /// Whole milliseconds only: anything finer is dropped, as config cannot spell it.
    public var configSpelling: String {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        let (total, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        guard !overflow, !sumOverflow, total != .min else { return "\(seconds)s" }
        guard total != 0 else { return "0s" }
        var remaining = abs(total)
        var spelling = total < 0 ? "-" : ""
        for unit in Self.configUnits where remaining >= unit.milliseconds {
            spelling += "\(remaining / unit.milliseconds)\(unit.suffix)"
            remaining %= unit.milliseconds
        }
        return spelling
    }
}
