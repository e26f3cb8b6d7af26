/// The refresh and throttling policy of one extension (DESIGN §4), as a
/// state machine without I/O: feed it ``RefreshEvent``s with the time they
/// happened, execute the ``RefreshAction``s it returns, in order.
///
/// Rules, in short (docs/POLICIES.md has the full statement):
/// * A pull is answered at once from the cache (`cached`) when the snapshot
///   is fresh, or when no update is in flight and the last update started
///   less than `pullCooldown` ago. A pull while an update is in flight joins
///   it (`coalesced`); otherwise it starts one (`updated`). One update at a time.
///   A pull that does not wait, of an expired snapshot, is answered at once from
///   the cache instead of joining or starting the update, and hears its outcome
///   afterwards (stale-while-revalidate).
/// * An update not answered by its deadline fails and the extension is
///   killed; answers to anything but the update in flight are discarded.
/// * Scheduled refreshes follow the reload hint, the (stretched) interval
///   minus a random spread of up to `jitter`, or the backoff after a failure,
///   but never start closer than `minInterval` to the previous update start,
///   and each spends a budget token (without one, they wait for the next).
/// * A reload asked by the app spends a budget token (none: refused) and starts an
///   update at once, or follows the update in flight once it is answered (one
///   follow-up at most: later reloads join it without spending).
/// * Fresh: there is a snapshot, the last update did not fail, and the last
///   success (`newData` or `noData`) is younger than the current interval.
///
/// * Timelines: the entries of a `newData`'s timeline become the snapshot at
///   their dates (one version up each, pushed), without an update; the snapshot is
///   fresh while entries are pending, and `atEnd` means the last entry's date.
///   A timeline is one update for pulls, schedules and the budget; the next
///   `newData` replaces it.
/// * Hidden (no host shows the widget): a scheduled refresh that comes due is
///   deferred, spending nothing, until the widget is shown again; then it runs at
///   once under the rules above (the seeds' `viewWillAppear`). Held by memory
///   admission (``MemoryAdmission``): the same, until released.
///
/// The engine keeps a single timer for the daemon: the deadline of the
/// update in flight, else the next scheduled refresh while shown (``wakeTime``).
///
/// Its helpers are internal, not private: cross-module optimization serializes (and the
/// daemon then specializes) only code that references no private declaration, and
/// unspecialized, every call looked up the engine's generic metadata.
public struct RefreshEngine<Payload: Sendable>: Sendable {
    /// The parameters in force.
    public internal(set) var parameters: RefreshParameters
    /// The state to persist (emitted as ``RefreshAction/persist`` when it changes).
    public internal(set) var record: RefreshRecord<Payload>
    var inFlight: InFlightUpdate?
    /// Whether a host shows the widget (not persisted: hosts say it again after a restart).
    public internal(set) var isShown = true
    /// Whether memory admission holds scheduled refreshes back (not persisted: the daemon
    /// says it again after its first reading).
    public internal(set) var isHeldForMemory = false

    /// Whether a scheduled refresh that comes due may start: shown and not held.
    var schedulesRun: Bool { isShown && !isHeldForMemory }

    /// An extension never updated: no snapshot, a full budget, nothing scheduled
    /// until its first update (a pull or a manual refresh) has finished.
    public init(parameters: RefreshParameters, now: Instant) {
        self.init(parameters: parameters, restoring: RefreshRecord(parameters: parameters, now: now), now: now)
    }

    /// An engine resuming from a persisted record, under possibly new
    /// parameters. Arm the timer at ``wakeTime`` afterwards.
    public init(parameters: RefreshParameters, restoring record: RefreshRecord<Payload>, now: Instant) {
        self.parameters = parameters
        self.record = record
        self.record.schedule.bucket.reconfigure(
            dailyBudget: parameters.dailyBudget, burst: parameters.budgetBurst, at: now)
    }

    /// The budget this engine spends, replaced by `bucket` (a budget shared by several
    /// engines, such as an extension's instances: hand it to the engine before each event
    /// and take it back after).
    public var budget: TokenBucket {
        get { record.schedule.bucket }
        set { record.schedule.bucket = newValue }
    }

    /// When the daemon's timer for this extension must go off, if at all.
    public var wakeTime: Instant? {
        // Without an array: the daemon asks after every event.
        func earlier(_ first: Instant?, _ second: Instant?) -> Instant? {
            guard let first, let second else { return first ?? second }
            return min(first, second)
        }
        return earlier(earlier(inFlight?.request.deadline, record.timeline.first?.date), schedulesRun ? record.schedule.nextRefresh : nil)
    }

    /// The update being waited for, if any.
    public var updateInFlight: UpdateRequest? {
        inFlight?.request
    }

    /// The snapshot as a host would see it at `now`.
    public func state(at now: Instant) -> SnapshotState<Payload> {
        let schedule = record.schedule
        let confirmedUntil = schedule.lastSuccessAt.map { $0 + currentInterval }
        return SnapshotState(
            snapshot: record.snapshot,
            age: record.snapshot.map { now - $0.updatedAt },
            isFresh: record.snapshot != nil && schedule.lastError == nil
                && (confirmedUntil.map { now < $0 } == true || !record.timeline.isEmpty),
            error: schedule.lastError
        )
    }

    /// Applies `event`, which happened at `now`, and returns what the daemon must do, in order.
    public mutating func handle(
        _ event: RefreshEvent<Payload>,
        at now: Instant,
        using generator: inout some RandomNumberGenerator
    ) -> [RefreshAction<Payload>] {
        // A fired timer is spent: re-arm it whenever there is a next wake-up.
        let armed: Instant? = if case .timerFired = event { nil } else { wakeTime }
        let scheduleBefore = record.schedule

        // Entries due by now are current before anything else looks at the snapshot. That
        // alone is no write: a restored record makes them current again from its timeline
        // (a write per entry, two fsyncs on the loop, held up every push behind it).
        var actions = advanceTimeline(at: now)
        // Usually the first actions: taken as they are, not copied into a new array.
        func add(_ more: [RefreshAction<Payload>]) {
            if actions.isEmpty { actions = more } else { actions += more }
        }
        let versionBefore = record.snapshot?.version
        switch event {
        case .pull(let token, let waits):
            add(pull(token, waits: waits, at: now))
        case .manualRefresh:
            add(inFlight == nil ? start(.manual, pulls: [], at: now) : [])
        case .reload:
            add(reload(at: now))
        case .timerFired:
            add(timerFired(at: now, using: &generator))
        case .updateFinished(let id, let result, let reload):
            let isAwaited = inFlight?.request.id == id
            let reloadFollows = isAwaited && inFlight?.reloadFollows == true
            add(isAwaited ? finish(result, reload: reload, at: now, using: &generator) : [])
            // Its token was spent when asked. After a deadline or an exit the failure's
            // retry takes its place instead.
            if reloadFollows { add(start(.schedule, pulls: [], at: now)) }
        case .extensionExited(let reason):
            add(finish(.failed(reason), reload: .atEnd, at: now, using: &generator))
        case .reconfigured(let parameters):
            self.parameters = parameters
            record.schedule.bucket.reconfigure(
                dailyBudget: parameters.dailyBudget, burst: parameters.budgetBurst, at: now)
        case .visibilityChanged(let shown):
            let wereRunning = schedulesRun
            isShown = shown
            add(released(from: wereRunning, at: now, using: &generator))
        case .memoryHold(let held):
            let wereRunning = schedulesRun
            isHeldForMemory = held
            add(released(from: wereRunning, at: now, using: &generator))
        }

        if record.schedule != scheduleBefore || record.snapshot?.version != versionBefore {
            actions.append(.persist)
        }
        if wakeTime != armed {
            actions.append(.armTimer(wakeTime))
        }
        return actions
    }

    /// The state a pull at `now` is answered from at once, when it is fresh and no timeline
    /// entry is due: then ``handle(_:at:using:)`` would return that one cached answer and
    /// change nothing, and the daemon's most common request skips the general path.
    /// `mutating` though it changes nothing: on an engine kept in a class it then reads the
    /// engine in place, where a plain method would copy it first.
    public mutating func freshState(at now: Instant) -> SnapshotState<Payload>? {
        if let entry = record.timeline.first, entry.date <= now { return nil }
        let state = state(at: now)
        return state.isFresh ? state : nil
    }

    // MARK: - Events

    mutating func pull(_ token: PullToken, waits: Bool, at now: Instant) -> [RefreshAction<Payload>] {
        // Worked out once, for every answer below: it is most of a cached pull's cost here.
        let state = state(at: now)
        if state.isFresh {
            return [cachedAnswer(to: token, state)]
        }
        // Without a snapshot there is nothing to answer at once: the pull waits.
        let revalidates = !waits && record.snapshot != nil
        if inFlight != nil {
            guard revalidates else {
                inFlight?.pulls.append(token)
                return []
            }
            inFlight?.revalidating.append(token)
            return [cachedAnswer(to: token, state, revalidating: true)]
        }
        if let lastAttempt = record.schedule.lastAttemptAt, now < lastAttempt + parameters.pullCooldown {
            return [cachedAnswer(to: token, state)]
        }
        guard revalidates else { return start(.pull, pulls: [token], at: now) }
        return [cachedAnswer(to: token, state, revalidating: true)] + start(.pull, pulls: [], revalidating: [token], at: now)
    }

    /// A refresh deferred while hidden or held is due: it runs now, once.
    mutating func released(
        from wereRunning: Bool, at now: Instant, using generator: inout some RandomNumberGenerator
    ) -> [RefreshAction<Payload>] {
        schedulesRun && !wereRunning && inFlight == nil ? timerFired(at: now, using: &generator) : []
    }

    mutating func reload(at now: Instant) -> [RefreshAction<Payload>] {
        if inFlight?.reloadFollows == true { return [.reloadAnswer(.scheduled)] }
        // Looked at before taking, so that a refusal changes nothing to persist.
        guard record.schedule.bucket.tokens(at: now) >= 1, record.schedule.bucket.tryTake(at: now) else {
            return [.reloadAnswer(.refused(nextToken: record.schedule.bucket.nextAvailable(at: now)))]
        }
        guard inFlight == nil else {
            // The update in flight may have read what the app is about to change: another follows.
            inFlight?.reloadFollows = true
            return [.reloadAnswer(.scheduled)]
        }
        return start(.schedule, pulls: [], at: now) + [.reloadAnswer(.scheduled)]
    }

    mutating func timerFired(
        at now: Instant,
        using generator: inout some RandomNumberGenerator
    ) -> [RefreshAction<Payload>] {
        if let update = inFlight {
            guard now >= update.request.deadline else { return [] }
            let failure = finish(.failed("no answer before the deadline"), reload: .atEnd, at: now, using: &generator)
            return [.killForDeadline(update.request.id)] + failure
        }
        // Hidden or held: deferred, spending nothing, until released (see `released`).
        guard schedulesRun, let due = record.schedule.nextRefresh, now >= due else { return [] }
        // Checked again here, not only when planning, so that no path can start
        // a scheduled refresh too early.
        if let earliest = earliestScheduledStart, now < earliest {
            record.schedule.nextRefresh = earliest
            return []
        }
        guard record.schedule.bucket.tryTake(at: now) else {
            record.schedule.nextRefresh = record.schedule.bucket.nextAvailable(at: now)
            return []
        }
        return start(.schedule, pulls: [], at: now)
    }

    // MARK: - Updates

    mutating func start(
        _ reason: UpdateReason,
        pulls: [PullToken],
        revalidating: [PullToken] = [],
        at now: Instant
    ) -> [RefreshAction<Payload>] {
        let id = UpdateID(record.schedule.lastUpdateID.rawValue &+ 1)
        let request = UpdateRequest(id: id, reason: reason, deadline: now + parameters.deadline)
        record.schedule.lastUpdateID = id
        record.schedule.lastAttemptAt = now
        record.schedule.nextRefresh = nil  // planned again when this update finishes
        inFlight = InFlightUpdate(request: request, pulls: pulls, revalidating: revalidating)
        return [.startUpdate(request)]
    }

    mutating func finish(
        _ result: UpdateResult<Payload>,
        reload: ReloadHint,
        at now: Instant,
        using generator: inout some RandomNumberGenerator
    ) -> [RefreshAction<Payload>] {
        guard let update = inFlight else { return [] }  // nothing awaited: nothing to finish
        inFlight = nil

        let pullResult: PullResult
        switch result {
        case .newData(let payload, let timeline):
            let version = (record.snapshot?.version ?? 0) &+ 1
            record.snapshot = Snapshot(payload: payload, version: version, updatedAt: now)
            record.timeline = timeline
            record.schedule.noDataInARow = 0
            recordSuccess(at: now, reload: reload, isNewData: true)
            pullResult = .newData
        case .noData:
            record.schedule.noDataInARow = record.schedule.noDataInARow.incrementedSaturating
            recordSuccess(at: now, reload: reload, isNewData: false)
            pullResult = .noData
        case .failed(let message):
            record.schedule.failuresInARow = record.schedule.failuresInARow.incrementedSaturating
            record.schedule.lastError = message
            pullResult = .failed
        }
        record.schedule.nextRefresh = plannedRefresh(after: result, reload: reload, at: now, using: &generator)

        var actions = answers(to: update, result: pullResult, at: now)
        if case .newData = result, let snapshot = record.snapshot {
            actions.append(.pushSnapshot(snapshot))
            // Entries dated in the past are current at once.
            actions += advanceTimeline(at: now)
        }
        return actions
    }

    /// Makes every timeline entry due by `now` the snapshot, in order, one version up each.
    mutating func advanceTimeline(at now: Instant) -> [RefreshAction<Payload>] {
        var actions: [RefreshAction<Payload>] = []
        while let entry = record.timeline.first, entry.date <= now {
            record.timeline.removeFirst()
            let version = (record.snapshot?.version ?? 0) &+ 1
            let snapshot = Snapshot(payload: entry.payload, version: version, updatedAt: now, timelineDate: entry.date)
            record.snapshot = snapshot
            actions.append(.pushSnapshot(snapshot))
        }
        return actions
    }

    mutating func recordSuccess(at now: Instant, reload: ReloadHint, isNewData: Bool) {
        record.schedule.lastSuccessAt = now
        record.schedule.lastError = nil
        record.schedule.failuresInARow = 0
        if reload == .never {
            record.schedule.isSuspended = true
        } else if isNewData {
            record.schedule.isSuspended = false
        }
    }

    /// The next scheduled refresh after an update finished at `now`.
    func plannedRefresh(
        after result: UpdateResult<Payload>,
        reload: ReloadHint,
        at now: Instant,
        using generator: inout some RandomNumberGenerator
    ) -> Instant? {
        guard !record.schedule.isSuspended else { return nil }
        let wanted: Instant
        switch (result, reload) {
        case (.failed, _):
            wanted = now + parameters.backoff.delay(forAttempt: record.schedule.failuresInARow, using: &generator)
        case (_, .after(let instant)):
            wanted = instant
        case (_, .atEnd) where !record.timeline.isEmpty:
            wanted = record.timeline.last?.date ?? now
        case (_, .atEnd), (_, .never):
            // Spread backwards so the refresh lands before the snapshot stops being fresh.
            wanted = now + currentInterval - .random(upTo: parameters.effectiveJitter, using: &generator)
        }
        return max(wanted, earliestScheduledStart ?? wanted)
    }

    // MARK: - Answers

    func answers(to update: InFlightUpdate, result: PullResult, at now: Instant) -> [RefreshAction<Payload>] {
        let state = state(at: now)
        var waiting = update.pulls[...]
        var actions: [RefreshAction<Payload>] = []
        if update.request.reason == .pull, let starter = waiting.popFirst() {
            actions.append(.answer(PullAnswer(pulls: [starter], delivery: .updated, result: result, state: state)))
        }
        if !waiting.isEmpty {
            actions.append(.answer(PullAnswer(pulls: Array(waiting), delivery: .coalesced, result: result, state: state)))
        }
        if !update.revalidating.isEmpty {
            actions.append(.revalidated(PullAnswer(pulls: update.revalidating, delivery: .updated, result: result, state: state)))
        }
        return actions
    }

    func cachedAnswer(to token: PullToken, _ state: SnapshotState<Payload>, revalidating: Bool = false) -> RefreshAction<Payload> {
        .answer(PullAnswer(pulls: [token], delivery: .cached, result: .cached, state: state, isRevalidating: revalidating))
    }

    // MARK: - Derived values

    /// The interval in force: `interval`, stretched by `noData` in a row.
    var currentInterval: Duration {
        parameters.stretchedInterval(noDataInARow: record.schedule.noDataInARow)
    }

    /// `minInterval` after the last update start.
    var earliestScheduledStart: Instant? {
        record.schedule.lastAttemptAt.map { $0 + parameters.minInterval }
    }
}

/// The update being waited for and the pulls waiting on it, the one that
/// started it (if any) first, the pulls answered from the expired snapshot it
/// revalidates, and whether an app's reload follows it. Not persisted: the
/// extension dies with the daemon.
struct InFlightUpdate: Sendable {
    var request: UpdateRequest
    var pulls: [PullToken]
    var revalidating: [PullToken]
    var reloadFollows = false
}

extension Int {
    var incrementedSaturating: Int {
        self == .max ? self : self + 1
    }
}
