/// Which process to kill under memory pressure (DESIGN §3, jetsam bands).
///
/// At most one victim per decision: the daemon kills it, waits for its cgroup
/// to empty, then asks again, so no more is killed than needed.
/// * `low`: suspended extensions, then idle ones; never an active one.
/// * `critical`: suspended extensions, then idle, then active extensions, then background
///   apps.
/// * Hosts are never chosen.
///
/// Within the lowest non-empty band allowed: lower `priority` first, then the
/// candidate that grew most, among those that grew by at least
/// ``growthThreshold``, then least recently used, then largest RSS, then
/// smallest `id`. This is a total order, so the choice does not depend on the
/// order of the candidates.
///
/// Growth comes before recency because a kill that spares the process taking
/// the memory only buys time: it keeps growing, and every bystander killed
/// before it is a surplus kill. Priority comes before growth because it is
/// what the administrator configured; growth is inferred.
public enum KillPolicy {
    /// Growth below this is noise (allocator caches, a thread's stack, a few file
    /// pages read) and does not make a candidate go first.
    public static let growthThreshold: UInt64 = 4 << 20

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
        let (lhsGrowth, rhsGrowth) = (significantGrowth(of: lhs), significantGrowth(of: rhs))
        if lhsGrowth != rhsGrowth { return lhsGrowth > rhsGrowth }
        if lhs.lastUsed != rhs.lastUsed { return lhs.lastUsed < rhs.lastUsed }
        if lhs.residentBytes != rhs.residentBytes { return lhs.residentBytes > rhs.residentBytes }
        return lhs.id < rhs.id
    }

    /// A candidate's growth when it reaches ``growthThreshold``, else 0: all candidates
    /// below the threshold rank alike and fall back to the rest of the order.
    private static func significantGrowth(of candidate: KillCandidate) -> UInt64 {
        candidate.growthBytes >= growthThreshold ? candidate.growthBytes : 0
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
    /// How much its memory grew since it entered its band (0 when it shrank, or
    /// when growth is not measured for its kind).
    public var growthBytes: UInt64
    /// When it was asked to exit by a trim, if it was: it may be on its way out already.
    public var exitAskedAt: Instant?

    /// A candidate `id` in `band`.
    public init(
        id: String, band: KillBand, priority: Int, lastUsed: Instant, residentBytes: UInt64, growthBytes: UInt64 = 0,
        exitAskedAt: Instant? = nil
    ) {
        self.exitAskedAt = exitAskedAt
        self.id = id
        self.band = band
        self.priority = priority
        self.lastUsed = lastUsed
        self.residentBytes = residentBytes
        self.growthBytes = growthBytes
    }
}

/// The jetsam bands, in kill order.
public enum KillBand: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    /// An extension frozen after `suspend_after` idle: it gives up nothing running, and
    /// its next request would have to thaw it anyway.
    case suspendedExtension
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
        case (.suspendedExtension, .low), (.idleExtension, .low), (_, .critical): true
        case (_, .low): false
        }
    }
}
