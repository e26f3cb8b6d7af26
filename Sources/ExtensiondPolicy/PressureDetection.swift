/// A reading of the memory tree: what the kernel charges it, and the part of that which
/// counts against `memory_budget`.
public struct MemoryReading: Sendable, Hashable {
    /// `memory.usage_in_bytes` / `memory.current`.
    public var usage: UInt64
    /// Usage less the page cache no process maps.
    public var workingSet: UInt64
    /// The difference: page cache no process maps.
    public var unmappedCache: UInt64 { usage - min(usage, workingSet) }

    public init(usage: UInt64, workingSet: UInt64) {
        self.usage = usage
        self.workingSet = workingSet
    }
}

/// Between memory-pressure episodes, without I/O (DESIGN §3): which trigger starts an
/// episode, and whether the tree is read again shortly after one ends. The kernel announces
/// crossings of usage figures, never levels, so that nothing may be lost on the way:
/// * a trigger that arrives while an episode runs is kept, and starts one more episode as
///   soon as that one is over (a stall trigger is kept over any other: it kills even below
///   `low`);
/// * after an episode the tree is re-checked shortly while its working set is in the
///   re-check band or past it, or (v1) while usage is within ``usageNoise`` of the re-check
///   usage threshold or past it, or of the warn one with the working set under `warn`;
/// * when the v1 usage thresholds are moved with the unmapped cache, that decision is made
///   on a reading taken after the move: a threshold registered while usage is already past
///   it never fires, so a crossing during the move would otherwise go unannounced. That
///   reading is re-checked too when its working set is on the other side of the warn
///   watermark than the episode's last one (below the re-check band, the warn threshold
///   alone would announce it).
///
/// Feed it ``Event``s, execute the ``Action``s it returns in order.
public struct PressureDetection<Trigger: Hashable & Sendable>: Sendable {
    public enum Event: Hashable, Sendable {
        /// A kernel notification, or the watermarks (re)armed; `byStall`: a PSI trigger.
        case trigger(Trigger, byStall: Bool)
        /// The re-check armed by ``Action/armRecheck`` is due, with its trigger.
        case recheckDue(Trigger)
        /// The episode is over, with its last reading (`nil`: none could be taken).
        case episodeEnded(MemoryReading?)
        /// Whether the usage thresholds moved (``Action/moveThresholds(offset:)``).
        case thresholdsMoved(Bool)
        /// A reading asked for by ``Action/readTree`` (`nil`: none could be taken).
        case reading(MemoryReading?)
    }

    public enum Action: Hashable, Sendable {
        /// Start an episode for the trigger; answer ``Event/episodeEnded(_:)`` once it is over.
        case startEpisode(Trigger)
        /// v1: put the usage thresholds at the watermarks plus `offset` bytes (the unmapped
        /// cache); answer ``Event/thresholdsMoved(_:)``.
        case moveThresholds(offset: UInt64)
        /// Read the tree; answer ``Event/reading(_:)``.
        case readTree
        /// Arm a one-shot re-check; answer ``Event/recheckDue(_:)`` when it fires.
        case armRecheck
    }

    private enum Phase: Hashable, Sendable {
        case idle
        case episode
        case moving(MemoryReading)
        case rereading(MemoryReading)
    }

    /// The watermarks; `nil` without `memory_budget` (then nothing is re-checked).
    public private(set) var thresholds: PressureThresholds?
    /// v1: where the usage thresholds sit above the watermarks; `nil` without them.
    public private(set) var usageThresholdOffset: UInt64?
    /// How far usage may fall back under a usage threshold the kernel saw it cross (v1:
    /// the charges each CPU holds in advance) and still be re-checked.
    public let usageNoise: UInt64
    /// The usage thresholds move when the unmapped cache differs from their offset by more.
    public let moveSlack: UInt64
    private var phase = Phase.idle
    private var kept: (trigger: Trigger, byStall: Bool)?
    private var recheckArmed = false

    public init(usageNoise: UInt64, moveSlack: UInt64) {
        self.usageNoise = usageNoise
        self.moveSlack = moveSlack
    }

    /// Whether an episode (or the settling after one) is under way.
    public var isIdle: Bool { phase == .idle }

    /// The watermarks were armed anew: `thresholds`, and v1 usage thresholds at
    /// `usageThresholdOffset` above them (`nil`: none).
    public mutating func armed(_ thresholds: PressureThresholds?, usageThresholdOffset: UInt64?) {
        self.thresholds = thresholds
        self.usageThresholdOffset = usageThresholdOffset
    }

    public mutating func handle(_ event: Event) -> [Action] {
        switch (phase, event) {
        case (_, .recheckDue(let trigger)):
            recheckArmed = false
            return handle(.trigger(trigger, byStall: false))
        case (.idle, .trigger(let trigger, _)):
            phase = .episode
            return [.startEpisode(trigger)]
        case let (_, .trigger(trigger, byStall)):
            if kept == nil || (byStall && kept?.byStall == false) { kept = (trigger, byStall) }
            return []
        case (.episode, .episodeEnded(let reading)):
            guard let reading else { return settled(nil) }
            if let offset = usageThresholdOffset, Self.distance(reading.unmappedCache, offset) > moveSlack {
                phase = .moving(reading)
                return [.moveThresholds(offset: reading.unmappedCache)]
            }
            return settled(reading)
        case (.moving(let before), .thresholdsMoved(let moved)):
            guard moved else { return settled(before) }
            usageThresholdOffset = before.unmappedCache
            phase = .rereading(before)
            return [.readTree]
        case (.rereading(let before), .reading(let after)):
            guard let after else { return settled(before) }
            return settled(after, crossedWarn: thresholds.map { ($0.warnBytes <= before.workingSet) != ($0.warnBytes <= after.workingSet) } ?? false)
        default:
            return []
        }
    }

    /// Whether a tree at `reading` must be read again shortly: its working set is in the
    /// re-check band or past it, or (v1) usage has passed, as the kernel may count it, the
    /// re-check usage threshold, or the warn one while the working set is under `warn`
    /// (the offset lags the cache by up to ``moveSlack``: the warn threshold fired early,
    /// and fires no more for the working set's own crossing).
    public func needsRecheck(_ reading: MemoryReading) -> Bool {
        guard let thresholds else { return false }
        if thresholds.needsRecheck(workingSet: reading.workingSet) { return true }
        guard let offset = usageThresholdOffset else { return false }
        let usage = reading.usage.saturatingAdd(usageNoise)
        return usage >= thresholds.recheckBytes.saturatingAdd(offset)
            || (usage >= thresholds.warnBytes.saturatingAdd(offset) && reading.workingSet < thresholds.warnBytes)
    }

    /// `crossedWarn`: the working set crossed the warn watermark while the thresholds moved.
    private mutating func settled(_ reading: MemoryReading?, crossedWarn: Bool = false) -> [Action] {
        phase = .idle
        if let (trigger, _) = kept {
            kept = nil
            phase = .episode
            return [.startEpisode(trigger)]
        }
        guard let reading, !recheckArmed, crossedWarn || needsRecheck(reading) else { return [] }
        recheckArmed = true
        return [.armRecheck]
    }

    private static func distance(_ a: UInt64, _ b: UInt64) -> UInt64 {
        max(a, b) - min(a, b)
    }
}
