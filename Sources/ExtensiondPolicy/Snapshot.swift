/// The content an extension last delivered with `newData`.
///
/// The payload is opaque to the policies: the daemon stores the JSON bytes
/// (or a parsed value) it received.
public struct Snapshot<Payload: Sendable>: Sendable {
    /// The extension's content.
    public var payload: Payload
    /// Counts `newData` results: 1 for the first snapshot, +1 for each next one.
    public var version: UInt64
    /// When the update that produced it finished, or its timeline entry became current;
    /// the snapshot's age counts from here.
    public var updatedAt: Instant
    /// Set when it came from a timeline: its entry's date.
    public var timelineDate: Instant?

    /// A snapshot of `payload` as version `version`, produced at `updatedAt`.
    public init(payload: Payload, version: UInt64, updatedAt: Instant, timelineDate: Instant? = nil) {
        self.payload = payload
        self.version = version
        self.updatedAt = updatedAt
        self.timelineDate = timelineDate
    }
}

extension Snapshot: Equatable where Payload: Equatable {}
extension Snapshot: Hashable where Payload: Hashable {}
extension Snapshot: Codable where Payload: Codable {}

/// What a host is told about an extension's content at some instant: the
/// snapshot (if any) and how much to trust it.
public struct SnapshotState<Payload: Sendable>: Sendable {
    /// The last snapshot, if the extension ever delivered one.
    public var snapshot: Snapshot<Payload>?
    /// Time since the snapshot was produced (`ageMs` on the wire); `nil` without a snapshot.
    public var age: Duration?
    /// The snapshot is fresh: see ``RefreshEngine`` and docs/POLICIES.md.
    public var isFresh: Bool
    /// Why the last update failed; set while the snapshot is stale.
    public var error: String?

    /// A state showing `snapshot`; stale exactly when `error` is set.
    public init(snapshot: Snapshot<Payload>?, age: Duration?, isFresh: Bool, error: String?) {
        self.snapshot = snapshot
        self.age = age
        self.isFresh = isFresh
        self.error = error
    }

    /// The last update failed, so the snapshot is older than it should be.
    public var isStale: Bool { error != nil }
}

extension SnapshotState: Equatable where Payload: Equatable {}
