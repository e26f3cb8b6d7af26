/// The part of a ``RefreshEngine`` that survives a restart of the daemon:
/// the snapshot and everything that decides the next update. An update in
/// flight is not part of it (the extension dies with the daemon).
///
/// Instants in a record are those of the clock that wrote it. When the daemon's
/// clock has a new origin after a restart, ``rebased(by:)`` moves them.
public struct RefreshRecord<Payload: Sendable>: Sendable {
    /// The last snapshot, if the extension ever delivered one.
    public internal(set) var snapshot: Snapshot<Payload>?
    /// The scheduling state.
    public internal(set) var schedule: RefreshSchedule
    /// The entries of the last timeline not current yet, in date order.
    public internal(set) var timeline: [TimelineSnapshot<Payload>] = []

    /// The record of an extension never updated, with a full budget.
    public init(parameters: RefreshParameters, now: Instant) {
        snapshot = nil
        schedule = RefreshSchedule(
            bucket: TokenBucket(dailyBudget: parameters.dailyBudget, burst: parameters.budgetBurst, now: now))
    }

    /// The same record on a clock whose readings are `offset` later. After a
    /// restart, pass `(new clock now − downtime) − (old clock reading at save)`,
    /// so that the budget refills and the snapshot ages over the downtime.
    public func rebased(by offset: Duration) -> RefreshRecord {
        var record = self
        if let updatedAt = snapshot?.updatedAt {
            record.snapshot?.updatedAt = updatedAt + offset
        }
        record.schedule = schedule.rebased(by: offset)
        record.timeline = timeline.map { TimelineSnapshot(payload: $0.payload, date: $0.date + offset) }
        if let date = snapshot?.timelineDate { record.snapshot?.timelineDate = date + offset }
        return record
    }
}

extension RefreshRecord: Equatable where Payload: Equatable {}

/// Records saved before timelines existed have none.
extension RefreshRecord: Codable where Payload: Codable {
    private enum CodingKeys: String, CodingKey {
        case snapshot, schedule, timeline
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        snapshot = try container.decodeIfPresent(Snapshot<Payload>.self, forKey: .snapshot)
        schedule = try container.decode(RefreshSchedule.self, forKey: .schedule)
        timeline = try container.decodeIfPresent([TimelineSnapshot<Payload>].self, forKey: .timeline) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(snapshot, forKey: .snapshot)
        try container.encode(schedule, forKey: .schedule)
        if !timeline.isEmpty { try container.encode(timeline, forKey: .timeline) }
    }
}

/// Everything that decides when an extension's next update happens, and how
/// the last one went.
public struct RefreshSchedule: Sendable, Hashable, Codable {
    /// The budget of scheduled refreshes.
    public internal(set) var bucket: TokenBucket
    /// When the last update attempt (of any reason) started.
    public internal(set) var lastAttemptAt: Instant?
    /// When the last `newData` or `noData` arrived: freshness counts from here.
    public internal(set) var lastSuccessAt: Instant?
    /// Why the last update failed; `nil` once an update succeeds.
    public internal(set) var lastError: String?
    /// `noData` results in a row: each doubles the interval.
    public internal(set) var noDataInARow: Int = 0
    /// Failed updates in a row: the backoff attempt of the next retry.
    public internal(set) var failuresInARow: Int = 0
    /// The extension said `never`: no scheduled refreshes until a `newData`.
    public internal(set) var isSuspended: Bool = false
    /// The next scheduled refresh, if one is planned and no update is in flight.
    public internal(set) var nextRefresh: Instant?
    /// The identifier of the last update started.
    public internal(set) var lastUpdateID: UpdateID = UpdateID(0)

    init(bucket: TokenBucket) {
        self.bucket = bucket
    }

    func rebased(by offset: Duration) -> RefreshSchedule {
        var schedule = self
        schedule.bucket = bucket.rebased(by: offset)
        schedule.lastAttemptAt = lastAttemptAt.map { $0 + offset }
        schedule.lastSuccessAt = lastSuccessAt.map { $0 + offset }
        schedule.nextRefresh = nextRefresh.map { $0 + offset }
        return schedule
    }
}
