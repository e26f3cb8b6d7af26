/// `cpu_max`: how much CPU time a process's cgroup may use, as a share of one core
/// (`"50%"` is half a core, `"200%"` two cores), or `"max"` for no limit. The kernel
/// enforces it per period of ``periodMicroseconds`` (v2 `cpu.max`, v1 `cpu.cfs_quota_us`).
public struct CPUQuota: Sendable, Hashable, CustomStringConvertible {
    /// CPU time per period; `nil`: no limit.
    public var microsecondsPerPeriod: Int?

    /// The enforcement period: 100 ms, the kernel's default.
    public static let periodMicroseconds = 100_000
    /// The least share: the kernel's smallest quota, 1 ms per period.
    public static let minimumPercent = 1.0
    /// The largest share short of `"max"`: 1024 cores.
    public static let maximumPercent = 102_400.0

    /// No limit.
    public static let unlimited = CPUQuota(microsecondsPerPeriod: nil)

    /// A limit of `percent` of a core (in ``minimumPercent``…``maximumPercent``).
    public init(percent: Double) {
        microsecondsPerPeriod = Int((percent / 100 * Double(Self.periodMicroseconds)).rounded())
    }

    private init(microsecondsPerPeriod: Int?) { self.microsecondsPerPeriod = microsecondsPerPeriod }

    static let expectedForm = #"a share of one core from 1% to 102400% such as "50%", or "max""#

    /// Parses `"max"` or digits with an optional decimal fraction, then `%`.
    ///
    /// - Throws: ``ValueSyntaxError`` naming the expected form or the range.
    public init(parsing text: String) throws(ValueSyntaxError) {
        if text == "max" {
            self = .unlimited
            return
        }
        let invalid = ValueSyntaxError("\"\(text)\" is not a CPU share; expected \(Self.expectedForm)")
        guard text.hasSuffix("%"), let (_, afterWhole) = leadingDecimal(Substring(text.dropLast())) else { throw invalid }
        if !afterWhole.isEmpty {
            guard afterWhole.first == ".", let (_, rest) = leadingDecimal(afterWhole.dropFirst()), rest.isEmpty else { throw invalid }
        }
        guard let percent = Double(text.dropLast()), percent >= Self.minimumPercent, percent <= Self.maximumPercent else {
            throw ValueSyntaxError("\"\(text)\" is out of range; expected \(Self.expectedForm)")
        }
        self.init(percent: percent)
    }

    /// The config spelling.
    public var description: String {
        guard let microseconds = microsecondsPerPeriod else { return "max" }
        let percent = Double(microseconds) * 100 / Double(Self.periodMicroseconds)
        return percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
    }
}
