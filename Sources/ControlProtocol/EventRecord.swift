/// One entry of the daemon's event log (`supervisorctl events`).
public struct EventRecord: Codable, CompleteKeys, Sendable, Equatable {
    /// Increases by one per event; lets `events -f` resume without gaps.
    public var sequence: UInt64
    /// Wall-clock time, milliseconds since the Unix epoch.
    public var timeMs: Int64
    public var kind: EventKind
    /// The host, app or extension concerned; absent for daemon-wide events.
    public var name: String?
    /// For kills and exits: `pressure`, `critical`, `oom`, `deadline`, `idle`, `protocol`, `manual`…
    public var reason: String?
    /// A human-readable line.
    public var message: String
    /// For kills: what the victim was and how long each step took.
    public var kill: KillRecord?

    public init(
        sequence: UInt64, timeMs: Int64, kind: EventKind, name: String? = nil, reason: String? = nil,
        message: String, kill: KillRecord? = nil
    ) {
        self.sequence = sequence
        self.timeMs = timeMs
        self.kind = kind
        self.name = name
        self.reason = reason
        self.message = message
        self.kill = kill
    }
}

/// What happened.
public enum EventKind: String, Codable, Sendable, CaseIterable {
    case launch, ready, suspend, reclaim, exit, kill, restart, fatal, oom, memoryWarning, cleanup, reload, error
}

/// The figures of one kill, like Android lmkd's killinfo.
public struct KillRecord: Codable, CompleteKeys, Sendable, Equatable {
    /// `idleExtension`, `activeExtension`, `backgroundApp`…
    public var band: String
    public var rssBytes: UInt64?
    /// How much the victim's memory grew since it last became idle or active (since its
    /// launch while it started): what the kill policy takes the grower first by.
    public var growthBytes: UInt64?
    /// Usage of the whole tree and the budget when the kill was decided.
    public var treeUsageBytes: UInt64?
    public var budgetBytes: UInt64?
    /// PSI `some avg10` of memory at the time, when known.
    public var psiSomeAvg10: Double?
    /// CLOCK_MONOTONIC microseconds: trigger ≤ decision ≤ signal ≤ empty.
    public var triggerUs: UInt64
    public var decisionUs: UInt64
    public var signalUs: UInt64
    /// When the victim's cgroup was seen empty; nil if it did not empty in time.
    public var emptyUs: UInt64?
    /// The daemon's last reading of the tree below the low watermark before the decision,
    /// when it had one: the crossing came after it, so `signalUs` minus this bounds the
    /// time from crossing to kill from above, however late the daemon was scheduled.
    public var lastBelowLowUs: UInt64?
    /// What `process_mrelease` did right after the signal: `released` (the victim's memory
    /// was freed by the daemon at once), `unsupported` (a kernel before 5.15: freed by the
    /// exit, as before) or `not released (<reason>)`; absent when it was not called.
    public var memoryRelease: String?

    public init(band: String, triggerUs: UInt64, decisionUs: UInt64, signalUs: UInt64, emptyUs: UInt64? = nil) {
        self.band = band
        self.triggerUs = triggerUs
        self.decisionUs = decisionUs
        self.signalUs = signalUs
        self.emptyUs = emptyUs
    }
}
