import ExtensiondPolicy

/// How many shared-defaults writes (`set`, `remove`) each extension or app may make: a
/// token bucket per writer, so that no peer keeps the loop busy saving defaults
/// (docs/SECURITY.md). The operator's `supervisorctl defaults` is not counted.
struct DefaultsWriteBudget {
    /// Writes a writer makes per second in the long run.
    static let writesPerSecond = 100
    /// Writes a writer makes at once after a pause.
    static let burst = 200

    private var buckets: [DefaultsWriter: TokenBucket] = [:]

    /// Takes one write from `writer`'s budget at `now`; false when it has none left.
    mutating func take(_ writer: DefaultsWriter, at now: Instant) -> Bool {
        var bucket = buckets[writer] ?? TokenBucket(dailyBudget: Self.writesPerSecond * 86_400, burst: Self.burst, now: now)
        let taken = bucket.tryTake(at: now)
        buckets[writer] = bucket
        return taken
    }
}

/// Who writes to the shared defaults, for its budget and its error messages.
package enum DefaultsWriter: Hashable, CustomStringConvertible {
    case `extension`(String)
    case app(String)
    /// `supervisorctl defaults`: the operator, not limited.
    case control

    package var description: String {
        switch self {
        case .extension(let id): "extension \(id)"
        case .app(let id): "app \(id)"
        case .control: "supervisorctl"
        }
    }
}
