import ControlProtocol
import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import Glibc
import WireProtocol

/// Runs the extension side of the product: launching on demand, `ready` within
/// `start_timeout`, one request at a time, the idle exit, and the refresh engine of
/// every extension (pulls, coalescing, deadlines, scheduled refreshes, persistence).
final class ExtensionCoordinator {
    private let loop: EventLoop
    private let supervisor: ProcessSupervisor
    private let registry: ProcessRegistry
    private let events: EventLog
    private let store: ExtensionStore
    private(set) var records: [String: ExtensionRecord] = [:]
    private var nextPullToken: UInt64 = 0
    /// Records changed since they were last written, and the timer that writes them.
    private var unsaved: Set<String> = []
    private var persistTimer: EventSource?
    /// Ids of `begin` requests (updates use the engine's ids).
    private var nextActionID: UInt64 = 0
    private var random = SystemRandomNumberGenerator()
    /// A snapshot to push to the hosts subscribed to an extension.
    var onPush: ((String, SupervisorToHost.Snapshot) -> Void)?
    /// Routes an extension's `openURL`; whether an app took it.
    var onOpenURL: (_ url: String, _ from: String) -> Bool = { _, _ in false }
    /// The shared defaults, and which groups each app owns.
    let groups: GroupStore
    private var appGroups: [String: Set<String>] = [:]
    /// An extension's run ended (`extensionTerminated` for hosts).
    var onTerminated: ((String, String) -> Void)?

    /// The user's `enable`/`disable` choices (persisted). An extension without one takes
    /// its configured `enabled`, so a config change still applies to it.
    private var enabledChoices: [String: Bool] = [:]

    init(loop: EventLoop, supervisor: ProcessSupervisor, registry: ProcessRegistry, events: EventLog, store: ExtensionStore, groups: GroupStore) {
        self.groups = groups
        self.loop = loop
        self.supervisor = supervisor
        self.registry = registry
        self.events = events
        self.store = store
        do {
            enabledChoices = try store.loadEnabled()
        } catch {
            events.record(.error, nil, "\(error); every extension takes its configured enabled state")
        }
    }

    private var now: Instant { loop.now.policyInstant }

    // MARK: Configuration

    /// Creates or updates the record of every configured extension: persisted
    /// snapshot and budget restored at first sight, parameters applied on reload.
    func configure(_ extensions: [ExtensionSpec], apps: [AppSpec]) {
        appGroups = Dictionary(apps.map { ($0.id, Set($0.groups)) }, uniquingKeysWith: { first, _ in first })
        var next: [String: ExtensionRecord] = [:]
        for spec in extensions {
            let parameters = RefreshParameters(spec.refresh)
            let enabled = enabledChoices[spec.id] ?? spec.enabled
            if let record = records[spec.id] {
                record.spec = spec
                perform(record, record.engine.handle(.reconfigured(parameters), at: now, using: &random))
                setEnabled(enabled, record)
                next[spec.id] = record
            } else {
                let engine = restoredRecord(spec.id).map {
                    RefreshEngine(parameters: parameters, restoring: $0, now: now)
                } ?? RefreshEngine(parameters: parameters, now: now)
                let record = ExtensionRecord(spec: spec, engine: engine, enabled: enabled, now: loop.now)
                next[spec.id] = record
                armRefreshTimer(record, at: engine.wakeTime)
            }
        }
        for (id, record) in records where next[id] == nil {
            retire(record)
        }
        records = next
    }

    /// An extension removed from the configuration: whoever waits for it is answered.
    private func retire(_ record: ExtensionRecord) {
        record.refreshTimer = nil
        record.startTimer = nil
        record.idleTimer = nil
        let reason = "extension \"\(record.id)\" was removed from the configuration"
        let last = record.engine.state(at: now)
        let outcome = PullOutcome(result: .failed, delivery: .updated,
                                  state: SnapshotState(snapshot: last.snapshot, age: last.age, isFresh: false, error: reason))
        let pulls = record.pendingPulls
        record.pendingPulls.removeAll()
        for completion in pulls.values { completion(outcome) }
        if case .action(_, _, _, let completion) = record.outstanding { completion(.failed(reason)) }
        record.outstanding = nil
        for case .action(_, let completion) in record.queue { completion(.failed(reason)) }
        record.queue.removeAll()
    }

    /// The record saved by an earlier run; a damaged one is reported and replaced.
    private func restoredRecord(_ id: String) -> RefreshRecord<EncodedJSON>? {
        do {
            return try store.loadRecord(id, now: now)
        } catch {
            events.record(.error, id, "\(error); starting without a snapshot and with a full budget")
            return nil
        }
    }

    // MARK: Requests from hosts

    /// A host's pull: answered from the cache, joined to an update in flight, or
    /// starting an update (DESIGN §4). `completion` runs exactly once.
    func pull(_ id: String, mode: DisplayMode, maxSize: Size, completion: @escaping (PullOutcome) -> Void) throws(RequestRejection) {
        let record = try usableRecord(id, point: .widget)
        record.displayMode = mode
        record.maxSize = maxSize
        record.lastUsed = loop.now
        nextPullToken += 1
        let token = PullToken(nextPullToken)
        record.pendingPulls[token] = completion
        perform(record, record.engine.handle(.pull(token), at: now, using: &random))
    }

    /// `supervisorctl refresh`: an update now, outside the budget. Only widgets have
    /// content to update; actions and shares answer `begin` only.
    /// Checks every id before refreshing any, so that a bad one refreshes none.
    func refresh(_ ids: [String]) throws(RequestRejection) {
        var selected: [ExtensionRecord] = []
        for id in ids { selected.append(try usableRecord(id, point: .widget)) }
        for record in selected {
            perform(record, record.engine.handle(.manualRefresh, at: now, using: &random))
        }
    }

    /// A host's `perform` on an action or share extension.
    func perform(_ id: String, items: [Item], completion: @escaping (ActionOutcome) -> Void) throws(RequestRejection) {
        let record = try usableRecord(id, point: nil)
        guard record.spec.point != .widget else { throw .wrongPoint(id, record.spec.point) }
        if let problem = ActivationRule(record.spec.activation).problem(with: items) {
            throw .itemsRejected(id, problem)
        }
        record.lastUsed = loop.now
        record.queue.append(.action(items: items, completion: completion))
        dispatch(record)
    }

    /// The user's activation state; persisted.
    func setEnabled(_ enabled: Bool, for ids: [String]) throws(RequestRejection) {
        for id in ids where records[id] == nil { throw .unknown(id) }
        for id in ids {
            enabledChoices[id] = enabled
            if let record = records[id] { setEnabled(enabled, record) }
        }
        do {
            try store.saveEnabled(enabledChoices)
        } catch {
            throw .storage("\(error)")
        }
    }

    private func setEnabled(_ enabled: Bool, _ record: ExtensionRecord) {
        guard record.enabled != enabled else { return }
        record.enabled = enabled
        // Scheduled refreshes wait while disabled (see `armRefreshTimer`).
        if enabled { armRefreshTimer(record, at: record.engine.wakeTime) }
    }

    private func usableRecord(_ id: String, point: ExtensionPoint?) throws(RequestRejection) -> ExtensionRecord {
        guard let record = records[id] else { throw .unknown(id) }
        guard record.enabled else { throw .disabled(id) }
        if let point, record.spec.point != point { throw .wrongPoint(id, record.spec.point) }
        return record
    }

    // MARK: The engine's actions

    private func perform(_ record: ExtensionRecord, _ actions: [RefreshAction<EncodedJSON>]) {
        for action in actions {
            switch action {
            case .answer(let answer):
                let outcome = PullOutcome(result: SnapshotResult(rawValue: answer.result.rawValue) ?? .failed,
                                          delivery: answer.delivery, state: answer.state)
                for token in answer.pulls {
                    switch answer.delivery {
                    case .cached: record.statistics.pullsCached += 1
                    case .coalesced: record.statistics.pullsCoalesced += 1
                    case .updated: record.statistics.pullsUpdated += 1
                    }
                    record.pendingPulls.removeValue(forKey: token)?(outcome)
                }
            case .startUpdate(let request):
                record.queue.append(.update(request))
                dispatch(record)
            case .pushSnapshot(let snapshot):
                onPush?(record.id, SupervisorToHost.Snapshot(
                    id: nil, extensionID: record.id, result: .newData, snapshot: snapshot.payload, version: snapshot.version,
                    ageMs: 0, stale: false))
            case .killForDeadline:
                if let process = registry[record.id], process.isAlive {
                    supervisor.kill(process, reason: "deadline", message: "no result within deadline \(record.spec.refresh.deadline.formatted)")
                }
                record.queue.removeAll { if case .update = $0 { true } else { false } }
            case .armTimer(let instant):
                armRefreshTimer(record, at: instant)
            case .persist:
                schedulePersist(record)
            }
        }
    }

    // MARK: Persistence

    /// How long a changed record may wait to be written: one write (two fsyncs) per
    /// extension per interval, off the path of the update that changed it.
    static let persistDelay = Duration.seconds(1)

    private func schedulePersist(_ record: ExtensionRecord) {
        unsaved.insert(record.id)
        guard persistTimer == nil else { return }
        persistTimer = try? loop.addTimer(after: Self.persistDelay, accuracy: .milliseconds(250)) { [unowned self] in
            self.persistTimer = nil
            self.saveRecords()
        }
    }

    /// Writes every record changed since the last write (at once: also at shutdown).
    func saveRecords() {
        persistTimer = nil
        let ids = unsaved
        unsaved.removeAll()
        for id in ids.sorted() {
            guard let record = records[id] else { continue }
            do {
                try store.saveRecord(record.engine.record, for: id, now: now)
            } catch {
                events.record(.error, id, "could not save the snapshot: \(error)")
            }
        }
    }

    private func armRefreshTimer(_ record: ExtensionRecord, at instant: Instant?) {
        guard let instant else {
            record.refreshTimer = nil
            return
        }
        let deadline = MonotonicInstant(instant)
        if let timer = record.refreshTimer {
            timer.reschedule(at: deadline)
        } else {
            record.refreshTimer = try? loop.addTimer(at: deadline, accuracy: .milliseconds(50)) { [unowned self, unowned record] in
                // A disabled extension is not refreshed in the background (enabling it re-arms
                // the timer), but an update already in flight still meets its deadline.
                guard record.enabled || record.engine.updateInFlight != nil else { return }
                self.perform(record, record.engine.handle(.timerFired, at: self.now, using: &self.random))
            }
        }
    }

    // MARK: Talking to the extension

    /// Sends the next queued request if the extension is ready and free; launches it
    /// if it is not running.
    private func dispatch(_ record: ExtensionRecord) {
        guard let process = registry[record.id], !record.queue.isEmpty, record.outstanding == nil else { return }
        guard let run = process.run else {
            do {
                try supervisor.start(process)
            } catch {
                fail(record, because: "launch failed: \(error)")
            }
            return
        }
        // A run being stopped (told to `terminate`) takes no new request: it waits for
        // the end of the run and a new launch (see `runEnded`).
        guard run.stopReason == nil else { return }
        guard process.state == .idle || process.state == .running, let channel = run.channel else { return }
        let started = MonotonicInstant.current()
        switch record.queue.removeFirst() {
        case .update(let request):
            record.outstanding = .update(RequestID(rawValue: request.id.rawValue), startedAt: started)
            channel.send(.update(.init(id: RequestID(rawValue: request.id.rawValue), mode: record.displayMode,
                                       maxSize: record.maxSize, reason: WireProtocol.UpdateReason(request.reason))))
        case .action(let items, let completion):
            nextActionID += 1
            let requestID = RequestID(rawValue: nextActionID)
            let deadline = try? loop.addTimer(after: record.spec.refresh.deadline) { [unowned self, unowned process] in
                self.supervisor.kill(process, reason: "deadline", message: "no complete within deadline \(record.spec.refresh.deadline.formatted)")
            }
            record.outstanding = .action(requestID, startedAt: started, deadline: deadline, completion: completion)
            channel.send(.begin(.init(id: requestID, items: items)))
        }
        becameActive(process)
    }

    /// Every queued request fails (the extension could not be launched).
    private func fail(_ record: ExtensionRecord, because reason: String) {
        let queued = record.queue
        record.queue.removeAll()
        for request in queued {
            if case .action(_, let completion) = request { completion(.failed(reason)) }
        }
        if record.engine.updateInFlight != nil {
            record.lastResult = ("failed", loop.now)
            perform(record, record.engine.handle(.extensionExited(reason: reason), at: now, using: &random))
        }
    }

    /// A new run: `ready` must come within `start_timeout`.
    func launched(_ process: SupervisedProcess) {
        guard let record = records[process.name] else { return }
        let timeout = record.spec.startTimeout
        record.startTimer = try? loop.addTimer(after: timeout) { [unowned self, unowned process] in
            self.supervisor.kill(process, reason: "deadline", message: "no ready within start_timeout \(timeout.formatted)")
        }
    }

    func received(_ message: ExtensionToSupervisor, from process: SupervisedProcess) {
        guard let record = records[process.name] else { return }
        let isReady = if case .ready = message { true } else { false }
        if process.state == .starting && !isReady {
            return violation(process, "\(message.type) before ready")
        }
        switch message {
        case .ready(let ready):
            guard process.state == .starting else { return violation(process, "ready sent twice") }
            guard ready.protocol == ExtensionToSupervisor.protocolVersion else {
                return violation(process, "protocol \(ready.protocol) is not supported (this daemon speaks \(ExtensionToSupervisor.protocolVersion))")
            }
            record.startTimer = nil
            if let run = process.run { process.statistics.lastLaunchLatency = MonotonicInstant.current().since(run.launchedAt) }
            events.record(.ready, process.name, "ready after \(process.statistics.lastLaunchLatency?.formatted ?? "?")")
            process.state = .idle
            settle(process, record)
        case .result(let result):
            guard case .update(let id, let startedAt) = record.outstanding, id == result.id else {
                return violation(process, "result for id \(result.id.rawValue), which is not the outstanding update")
            }
            let outcome: UpdateResult<EncodedJSON>
            switch result.result {
            case .newData:
                guard let snapshot = result.snapshot else { return violation(process, "newData without a snapshot") }
                outcome = .newData(snapshot.encoded())
                record.statistics.resultsNewData += 1
            case .noData:
                outcome = .noData
                record.statistics.resultsNoData += 1
            case .failed:
                outcome = .failed(result.error ?? "the extension reported failed")
                record.statistics.resultsFailed += 1
            }
            record.outstanding = nil
            record.lastResult = (result.result.rawValue, loop.now)
            record.statistics.recordUpdateLatency(MonotonicInstant.current().since(startedAt))
            let hint = result.reload.map { policyHint($0) } ?? .atEnd
            perform(record, record.engine.handle(.updateFinished(UpdateID(id.rawValue), outcome, reload: hint), at: now, using: &random))
            settle(process, record)
        case .complete(let complete):
            guard case .action(let id, _, _, let completion) = record.outstanding, id == complete.id else {
                return violation(process, "complete for id \(complete.id.rawValue), which is not the outstanding begin")
            }
            record.outstanding = nil
            completion(.completed(complete.items))
            settle(process, record)
        case .setHasContent(let value):
            record.hasContent = value.value
        case .openURL(let request):
            process.run?.channel?.send(.openURLResult(.init(id: request.id, success: onOpenURL(request.url, process.name))))
        case .defaults(let request):
            let outcome: SupervisorToExtension.DefaultsResult.Outcome
            if let groupsOfApp = appGroups[record.spec.app], groupsOfApp.contains(request.group) {
                do {
                    outcome = .value(try groups.perform(request.op, group: request.group, key: request.key, value: request.value))
                } catch {
                    outcome = .error(error.description)
                }
            } else {
                outcome = .error("group \"\(request.group)\" does not belong to app \"\(record.spec.app)\"")
            }
            process.run?.channel?.send(.defaultsResult(.init(id: request.id, outcome: outcome)))
        }
    }

    /// After a request finished: the next one, or idle.
    private func settle(_ process: SupervisedProcess, _ record: ExtensionRecord) {
        if record.queue.isEmpty {
            becameIdle(process, record)
        } else {
            dispatch(record)
        }
    }

    private func policyHint(_ hint: WireProtocol.ReloadHint) -> ExtensiondPolicy.ReloadHint {
        switch hint {
        case .atEnd: return .atEnd
        case .never: return .never
        case .after(let date):
            let fromNow = Int64((date.timeIntervalSince1970 * 1000).rounded()) - WallClock.nowMilliseconds()
            return .after(now + .milliseconds(fromNow))
        }
    }

    /// Nothing in flight: exit after `idle_exit` unless used again.
    private func becameIdle(_ process: SupervisedProcess, _ record: ExtensionRecord) {
        guard process.isAlive, record.isQuiet else { return }
        process.state = .idle
        let idleExit = record.spec.idleExit
        record.idleTimer = try? loop.addTimer(after: idleExit, accuracy: .milliseconds(250)) { [unowned self, unowned process, unowned record] in
            record.idleTimer = nil
            self.supervisor.stop(process, reason: "idle")
        }
    }

    /// Serving: no idle exit while a request is in flight.
    private func becameActive(_ process: SupervisedProcess) {
        process.state = .running
        records[process.name]?.idleTimer = nil
    }

    /// The run is over: whatever it was doing failed; hosts are told.
    func runEnded(_ process: SupervisedProcess, reason: String) {
        guard let record = records[process.name] else { return }
        record.startTimer = nil
        record.idleTimer = nil
        if case .action(_, _, _, let completion) = record.outstanding {
            completion(.failed("the extension ended (\(reason)) before completing"))
        }
        record.outstanding = nil
        if reason == "idle" && !record.queue.isEmpty {
            // Requests that came while the extension was exiting idle: a new run serves them.
            dispatch(record)
        } else {
            fail(record, because: "the extension ended (\(reason))")
        }
        onTerminated?(process.name, reason)
    }

    private func violation(_ process: SupervisedProcess, _ message: String) {
        supervisor.kill(process, reason: "protocol", message: "protocol violation: \(message)")
    }
}

/// Why a host's or the CLI's request cannot be served.
enum RequestRejection: Error, CustomStringConvertible {
    case unknown(String)
    case disabled(String)
    case wrongPoint(String, ExtensionPoint)
    case itemsRejected(String, String)
    case storage(String)

    var description: String {
        switch self {
        case .unknown(let id): "unknown extension \"\(id)\""
        case .disabled(let id): "extension \"\(id)\" is disabled (supervisorctl enable \(id))"
        case .wrongPoint(let id, let point): "extension \"\(id)\" is a \(point.rawValue) extension; this request needs another point"
        case .itemsRejected(let id, let problem): "extension \"\(id)\" does not accept these items: \(problem)"
        case .storage(let message): "could not save the state: \(message)"
        }
    }
}

extension RefreshParameters {
    /// The policy's parameters from an extension's `[refresh]` table.
    init(_ settings: RefreshSettings) {
        self.init()
        interval = settings.interval
        minInterval = settings.minInterval
        jitter = settings.jitter
        maxInterval = settings.maxInterval
        pullCooldown = settings.pullCooldown
        deadline = settings.deadline
        dailyBudget = settings.dailyBudget
        budgetBurst = settings.budgetBurst
        backoffBase = settings.backoffBase
        backoffMax = settings.backoffMax
    }
}

extension WireProtocol.UpdateReason {
    init(_ reason: ExtensiondPolicy.UpdateReason) {
        switch reason {
        case .pull: self = .pull
        case .schedule: self = .schedule
        case .manual: self = .manual
        }
    }
}
