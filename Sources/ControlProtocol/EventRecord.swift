/// One entry of the daemon's event log (`supervisorctl events`).
public struct EventRecord: Codable, Sendable, Equatable {
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
    public var kill: KillRecord? {
        get { killBox?.record }
        set { killBox = newValue.map(KillBox.init) }
    }
    /// Out of line: the daemon keeps 1,000 events, few of them kills, and a `KillRecord`
    /// inline would triple each (bench/README.md, "The daemon's memory, again").
    private var killBox: KillBox?

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

    private enum CodingKeys: String, CodingKey {
        case sequence, timeMs, kind, name, reason, message, kill
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            sequence: try container.decode(UInt64.self, forKey: .sequence), timeMs: try container.decode(Int64.self, forKey: .timeMs),
            kind: try container.decode(EventKind.self, forKey: .kind), name: try container.decodeIfPresent(String.self, forKey: .name),
            reason: try container.decodeIfPresent(String.self, forKey: .reason), message: try container.decode(String.self, forKey: .message),
            kill: try container.decodeIfPresent(KillRecord.self, forKey: .kill))
    }

    /// Every key, `null` included, as ``CompleteKeys`` writes them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(timeMs, forKey: .timeMs)
        try container.encode(kind, forKey: .kind)
        try container.encode(name, forKey: .name)
        try container.encode(reason, forKey: .reason)
        try container.encode(message, forKey: .message)
        try container.encode(kill, forKey: .kill)
    }
}

/// A ``KillRecord`` kept by reference in an ``EventRecord``.
private final class KillBox: Sendable, Equatable {
    let record: KillRecord

    init(_ record: KillRecord) { self.record = record }

    static func == (lhs: KillBox, rhs: KillBox) -> Bool { lhs.record == rhs.record }
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
