/// Which process to kill under memory pressure (DESIGN §3, jetsam bands).
///
/// At most one victim per decision: the daemon kills it, waits for its cgroup
/// to empty, then asks again, so no more is killed than needed.
/// * `low`: idle extensions only.
/// * `critical`: idle extensions, then active extensions, then background apps.
/// * Hosts are never chosen.
///
/// Within the lowest non-empty band allowed: lower `priority` first, then
/// least recently used, then largest RSS, then smallest `id`. This is a total
/// order, so the choice does not depend on the order of the candidates.
public enum KillPolicy {
    /// The one process to kill at `pressure`, or `nil` when none may be killed.
    public static func victim(
        among candidates: some Sequence<KillCandidate>,
        at pressure: PressureLevel
    ) -> KillCandidate? {
        candidates
            .filter { $0.band.isKillable(at: pressure) }
            .min(by: killsBefore)
    }

    /// Whether `lhs` goes before `rhs`.
    private static func killsBefore(_ lhs: KillCandidate, _ rhs: KillCandidate) -> Bool {
        if lhs.band != rhs.band { return lhs.band < rhs.band }
        if lhs.priority != rhs.priority { return lhs.priority < rhs.priority }
        if lhs.lastUsed != rhs.lastUsed { return lhs.lastUsed < rhs.lastUsed }
        if lhs.residentBytes != rhs.residentBytes { return lhs.residentBytes > rhs.residentBytes }
        return lhs.id < rhs.id
    }
}

/// A supervised process as the kill policy sees it.
public struct KillCandidate: Sendable, Hashable {
    /// The configured name of the host, app or extension.
    public var id: String
    /// Its band, which says what kind of process it is and what it is doing.
    public var band: KillBand
    /// The configured `priority`: lower is killed first.
    public var priority: Int
    /// When it last served a request (or was launched).
    public var lastUsed: Instant
    /// Its resident memory.
    public var residentBytes: UInt64

    /// A candidate `id` in `band`.
    public init(id: String, band: KillBand, priority: Int, lastUsed: Instant, residentBytes: UInt64) {
        self.id = id
        self.band = band
        self.priority = priority
        self.lastUsed = lastUsed
        self.residentBytes = residentBytes
    }
}

/// The jetsam bands, in kill order.
public enum KillBand: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    /// An extension with no request in progress.
    case idleExtension
    /// An extension serving a request (an update, an action).
    case activeExtension
    /// A containing app (not a host).
    case backgroundApp
    /// A host: never chosen by the pressure policy.
    case host

    public static func < (lhs: KillBand, rhs: KillBand) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Whether the pressure policy may kill a process of this band at `pressure`.
    public func isKillable(at pressure: PressureLevel) -> Bool {
        switch (self, pressure) {
        case (.host, _), (_, .none): false
        case (.idleExtension, .low), (_, .critical): true
        case (_, .low): false
        }
    }
}
