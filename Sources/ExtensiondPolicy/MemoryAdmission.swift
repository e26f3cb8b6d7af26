/// Admission of launches and scheduled refreshes against memory (POLICIES.md, "Admission"):
/// work the daemon starts on its own must not be what pushes the tree into a kill.
///
/// * A scheduled refresh is deferred, spending nothing, while the working set is at or
///   above `warn`, while its extension was killed by pressure and the working set has not
///   been below `warn` since, and while launching it would take the working set to `low`
///   (its recorded peak added).
/// * A launch whose recorded peak would take the working set to `low` first frees that
///   much by the kill policy (idle and suspended extensions only, as at `low` pressure);
///   a scheduled refresh waits instead (above).
/// * Without a budget (no thresholds) everything is admitted.
///
/// It holds no clock: the daemon feeds it each reading of the tree (with its instant) and
/// each pressure kill, asks it before each launch or scheduled refresh, and reads the tree
/// again at ``nextReading``.
public struct MemoryAdmission: Sendable, Hashable {
    /// The watermarks; `nil` without `memory_budget`.
    public var thresholds: PressureThresholds?
    /// The working set at the last reading; `nil` before the first.
    public private(set) var workingSet: UInt64?
    /// The tree's usage (unmapped cache included) at the last reading.
    public private(set) var usage: UInt64?
    /// When the last reading was taken.
    public private(set) var lastReading: Instant?
    /// Extensions killed by pressure since the working set was last below `warn`.
    public private(set) var pressureKilled: Set<String> = []

    /// How often the tree is read while a reading is due (``nextReading``).
    public static let readingInterval: Duration = .seconds(1)

    /// Nothing read or killed yet.
    public init(thresholds: PressureThresholds?) {
        self.thresholds = thresholds
    }

    /// A reading at `now` of the tree's working set and its usage (at least the working
    /// set); below `warn`, pressure has eased and the extensions it killed may be
    /// refreshed again.
    public mutating func observe(workingSet: UInt64, usage: UInt64, at now: Instant) {
        self.workingSet = workingSet
        self.usage = max(usage, workingSet)
        lastReading = now
        if let thresholds, workingSet < thresholds.warnBytes { pressureKilled.removeAll() }
    }

    /// The pressure policy killed extension `id`.
    public mutating func killedByPressure(_ id: String) {
        pressureKilled.insert(id)
    }

    /// Whether the tree is above `warn` or holds an extension killed by pressure.
    public var isHolding: Bool {
        guard let thresholds else { return false }
        return !pressureKilled.isEmpty || (workingSet ?? 0) >= thresholds.warnBytes
    }

    /// When the tree must be read again, ``readingInterval`` after the last reading; `nil`
    /// while the kernel's notifications suffice. A reading is due while anything is held
    /// (only a reading lets it go) and while usage is at or past `warn` with the working set
    /// below: the kernel announced usage crossing `warn`, and will not announce the working
    /// set (usage less the unmapped cache) doing so later.
    public var nextReading: Instant? {
        guard let thresholds, let lastReading else { return nil }
        guard isHolding || (usage ?? 0) >= thresholds.warnBytes else { return nil }
        return lastReading + Self.readingInterval
    }

    /// Whether a scheduled refresh of extension `id` may start now. `launchPeak` is the
    /// recorded peak of its cgroup when it must be launched first (`nil`: it runs, or
    /// no peak was recorded yet).
    public func admitsScheduledRefresh(of id: String, launchPeak: UInt64?) -> Bool {
        guard let thresholds else { return true }
        guard let workingSet else { return true }
        guard workingSet < thresholds.warnBytes, !pressureKilled.contains(id) else { return false }
        return bytesToFree(beforeLaunching: launchPeak) == 0
    }

    /// How much must be freed before a launch whose cgroup peaked at `peak` bytes so that
    /// the working set stays below `low`: 0 when it already does (or nothing is known).
    public func bytesToFree(beforeLaunching peak: UInt64?) -> UInt64 {
        guard let thresholds, let workingSet, let peak else { return 0 }
        let after = workingSet.saturatingAdd(peak)
        guard after >= thresholds.lowBytes else { return 0 }
        let excess = after - thresholds.lowBytes
        // Enough to land one byte under `low`.
        return excess == .max ? .max : excess + 1
    }
}
