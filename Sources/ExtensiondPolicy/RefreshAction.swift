/// What the daemon must do for one extension, returned in order by
/// ``RefreshEngine/handle(_:at:using:)``; execute them in that order.
public enum RefreshAction<Payload: Sendable>: Sendable {
    /// Send the update request (launching the extension first if needed),
    /// then report its answer as ``RefreshEvent/updateFinished(_:_:reload:)``.
    case startUpdate(UpdateRequest)
    /// Reply to these pulls.
    case answer(PullAnswer<Payload>)
    /// The update that revalidates these pulls' expired snapshot finished: tell their
    /// hosts its outcome (they were answered already, from the cache).
    case revalidated(PullAnswer<Payload>)
    /// Push the new snapshot to the subscribed hosts.
    case pushSnapshot(Snapshot<Payload>)
    /// The update in flight missed its deadline: kill the extension (reason `deadline`).
    case killForDeadline(UpdateID)
    /// Arm the extension's single timer at this instant, replacing any armed
    /// one; `nil` disarms it. When it goes off, send ``RefreshEvent/timerFired``.
    case armTimer(Instant?)
    /// ``RefreshEngine/record`` changed: save it (coalescing writes is fine).
    case persist
    /// Tell the app that asked for a ``RefreshEvent/reload`` whether it was scheduled.
    case reloadAnswer(ReloadAnswer)
}

/// The answer to a ``RefreshEvent/reload``.
public enum ReloadAnswer: Sendable, Hashable {
    /// An update starts now, or follows the one in flight.
    case scheduled
    /// The budget has no token; the next one comes at this instant (`nil`: never, with a
    /// zero budget or burst).
    case refused(nextToken: Instant?)
}

extension RefreshAction: Equatable where Payload: Equatable {}

/// One update request to send to the extension.
public struct UpdateRequest: Sendable, Hashable {
    /// The request's `id`; its answer must carry the same.
    public var id: UpdateID
    /// Why the update runs (the request's `reason`).
    public var reason: UpdateReason
    /// When the engine gives up on it (the timer is armed for this).
    public var deadline: Instant

    /// A request `id` for `reason`, due by `deadline`.
    public init(id: UpdateID, reason: UpdateReason, deadline: Instant) {
        self.id = id
        self.reason = reason
        self.deadline = deadline
    }
}

/// Why an update runs; the wire names of the `update` message's `reason`.
public enum UpdateReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// A host pulled and the cache could not answer.
    case pull
    /// A scheduled refresh or a retry after a failure; spends the budget.
    case schedule
    /// A manual refresh.
    case manual
}

/// A reply to one or more pulls, all answered the same way.
public struct PullAnswer<Payload: Sendable>: Sendable {
    /// The pulls answered.
    public var pulls: [PullToken]
    /// How they were served (for the pull statistics).
    public var delivery: PullDelivery
    /// The reply's `result`.
    public var result: PullResult
    /// The snapshot and its age, freshness and error, as of the answer.
    public var state: SnapshotState<Payload>
    /// A cached answer from an expired snapshot while an update revalidates it (the
    /// wire's `expired`): a ``RefreshAction/revalidated(_:)`` follows.
    public var isRevalidating: Bool

    /// An answer to `pulls`.
    public init(
        pulls: [PullToken], delivery: PullDelivery, result: PullResult, state: SnapshotState<Payload>,
        isRevalidating: Bool = false
    ) {
        self.pulls = pulls
        self.delivery = delivery
        self.result = result
        self.state = state
        self.isRevalidating = isRevalidating
    }
}

extension PullAnswer: Equatable where Payload: Equatable {}

/// How a pull was served: the `pulls served cached / coalesced / updated` statistics.
public enum PullDelivery: String, Sendable, Hashable, Codable {
    /// At once from the cached snapshot; the extension was not called.
    case cached
    /// By joining an update that was already in flight.
    case coalesced
    /// By the update this pull started.
    case updated
}

/// The `result` of a host's `snapshot` reply.
public enum PullResult: String, Sendable, Hashable, Codable {
    /// Served from the cache without calling the extension.
    case cached
    /// The update brought new content.
    case newData
    /// The update confirmed the content.
    case noData
    /// The update failed or missed its deadline; the snapshot is stale.
    case failed
}
