/// Something that happened to one extension, fed to ``RefreshEngine/handle(_:at:using:)``.
public enum RefreshEvent<Payload: Sendable>: Sendable {
    /// A host pulled the extension; the token comes back in exactly one ``RefreshAction/answer(_:)``.
    /// A pull that `waits` is answered after an update when the snapshot is not fresh; one
    /// that does not is answered at once from an expired snapshot while an update
    /// revalidates it (stale-while-revalidate), and hears the update's outcome in
    /// ``RefreshAction/revalidated(_:)``.
    case pull(PullToken, waits: Bool = true)
    /// Someone asked for an update (`supervisorctl refresh`).
    case manualRefresh
    /// The containing app asked for an update now (WidgetKit's `reloadTimelines`): it
    /// spends a budget token, and is answered by exactly one ``RefreshAction/reloadAnswer(_:)``.
    case reload
    /// The timer last armed by ``RefreshAction/armTimer(_:)`` went off.
    case timerFired
    /// The extension answered update `id`. Answers to anything but the update
    /// in flight (late answers, after the deadline) are discarded.
    case updateFinished(UpdateID, UpdateResult<Payload>, reload: ReloadHint = .atEnd)
    /// The extension process is gone (it exited, crashed, could not be
    /// launched or was killed); an update in flight fails with `reason`.
    case extensionExited(reason: String)
    /// The configuration changed: the budget changes at once, the rest from
    /// the next update on.
    case reconfigured(RefreshParameters)
    /// Whether some host shows the widget. While hidden, scheduled refreshes are deferred
    /// and spend nothing; shown again, one that came due meanwhile runs at once.
    case visibilityChanged(shown: Bool)
    /// Whether memory admission holds scheduled refreshes back (``MemoryAdmission``):
    /// like hidden, they are deferred and spend nothing; released, one that came due
    /// meanwhile runs at once. Pulls, reloads and manual refreshes are not held.
    case memoryHold(Bool)
}

/// The daemon's name for one pull, answered exactly once.
public struct PullToken: Sendable, Hashable, Codable {
    /// Chosen by the daemon, e.g. a counter mapped to the host connection and request `id`.
    public var rawValue: UInt64

    /// The token `rawValue`.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
}

/// The identity of one update request, sent as its `id` and matched against the answer.
public struct UpdateID: Sendable, Hashable, Codable {
    /// Increases by one with every update of the extension.
    public var rawValue: UInt64

    /// The identifier `rawValue`.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
}

/// An extension's answer to an update (the `result` message).
public enum UpdateResult<Payload: Sendable>: Sendable {
    /// New content: it becomes the snapshot, one version up; each entry of `timeline`
    /// (ascending dates) becomes the snapshot at its date, one version up each.
    case newData(Payload, timeline: [TimelineSnapshot<Payload>] = [])
    /// Nothing new: the snapshot stays and is confirmed current.
    case noData
    /// The update failed: the snapshot stays, marked stale with this message.
    case failed(String)
}

/// When the extension wants its next scheduled refresh (the `reload` field).
public enum ReloadHint: Sendable, Hashable, Codable {
    /// At this instant, but never closer than `minInterval` to the update's start.
    case after(Instant)
    /// At the end of the normal (possibly stretched) interval; also what no hint means.
    case atEnd
    /// No scheduled refreshes until a pull or manual refresh gets `newData` again.
    case never
}
