/// Extensions as hosts see them: each extension's refresh engine, its
/// one-request-at-a-time protocol, snapshots, their persistence and statistics.
///
/// This module owns the extension protocol and the extension state on disk. It reaches
/// processes only through ``ExtensionProcesses`` and time only through ``CoordinatorClock``;
/// it must not import Processes, Hosts or Control.
import DaemonSupport
import ExtensiondConfig
import ExtensiondPolicy
import HostProtocol
import ProcessIsolation

/// Runs the extension side of the product: launching on demand, `ready` within
/// `start_timeout`, one request at a time, the idle exit, and the refresh engine of
/// every extension (pulls, coalescing, deadlines, scheduled refreshes, persistence).
///
/// It reaches processes only through ``ExtensionProcesses`` and time only through
/// ``CoordinatorClock``, so that tests drive it in-process, in virtual time. Its parts:
/// configuration and activation here; host requests (`+Requests`), the refresh
/// engine's actions (`+Refresh`), the request queue and run lifecycle (`+Dispatch`),
/// and the extension protocol (`+Messages`).
package final class ExtensionCoordinator {
    let clock: any CoordinatorClock
    let processes: any ExtensionProcesses
    let events: EventLog
    package let store: ExtensionStore
    package private(set) var records: [String: ExtensionRecord] = [:]
    var nextPullToken: UInt64 = 0
    /// Ids of the `update` and `begin` requests sent to extensions.
    var nextRequestID: UInt64 = 0
    /// The refresh engines' jitter and backoff; seeded in tests so a run repeats exactly.
    var random: any RandomNumberGenerator
    private(set) lazy var writer = RecordWriter(
        store: store, clock: clock, events: events,
        hasContent: { [unowned self] in self.hasContentDeclared }
    ) { [unowned self] id in
        self.records[id]
    }
    /// A snapshot to push to the hosts subscribed to an extension.
    package var onPush: ((String, SupervisorToHost.Snapshot) -> Void)?
    /// Routes an extension's `openURL`; whether an app took it.
    package var onOpenURL: (_ url: String, _ from: String) -> Bool = { _, _ in false }
    /// Which type identifiers conform to which, for activation rules.
    private(set) var types = TypeHierarchy()
    /// The shared defaults, and which groups each app owns.
    package let groups: GroupStore
    package private(set) var groupAccess: GroupAccess
    /// An extension's run ended (`extensionTerminated` for hosts).
    package var onTerminated: ((String, StopReason) -> Void)?
    /// An extension's `hasContent` changed (`hasContentChanged` for hosts).
    package var onHasContentChanged: ((String, Bool) -> Void)?
    /// What `list` tells changed (a widget's largest mode): hosts that listed hear it again.
    package var onGalleryChanged: (() -> Void)?

    /// The user's `enable`/`disable` choices (persisted). An extension without one takes
    /// its configured `enabled`, so a config change still applies to it.
    private var enabledChoices: [String: Bool] = [:]
    private let enabledFile: DurableRecord
    /// What each extension last said with `setHasContent` (persisted: hosts keep hiding an
    /// extension without content across restarts).
    private var hasContentDeclared: [String: Bool] = [:]

    package init(
        clock: any CoordinatorClock, processes: any ExtensionProcesses, events: EventLog, store: ExtensionStore, groups: GroupStore,
        random: any RandomNumberGenerator = SystemRandomNumberGenerator()
    ) {
        self.clock = clock
        self.random = random
        self.processes = processes
        self.events = events
        self.store = store
        self.groups = groups
        groupAccess = GroupAccess(store: groups)
        enabledFile = store.enabledRecord(clock: clock, events: events)
        do {
            enabledChoices = try store.loadEnabled()
        } catch {
            events.record(.error, nil, "\(error); every extension takes its configured enabled state")
        }
        do {
            hasContentDeclared = try store.loadHasContent()
        } catch {
            events.record(.error, nil, "\(error); every extension has content until it says otherwise")
        }
    }

    var now: Instant { clock.now.policyInstant }

    // MARK: Configuration

    /// Creates or updates the record of every configured extension: persisted
    /// snapshot and budget restored at first sight, parameters applied on reload.
    package func configure(_ extensions: [ExtensionSpec], apps: [AppSpec], types: TypeHierarchy = TypeHierarchy()) {
        groupAccess.configure(apps)
        self.types = types
        var next: [String: ExtensionRecord] = [:]
        for spec in extensions {
            let parameters = RefreshParameters(spec.refresh)
            let enabled = enabledChoices[spec.id] ?? spec.enabled
            if let record = records[spec.id] {
                record.spec = spec
                reconfigureSlots(record, parameters)
                setEnabled(enabled, record)
                next[spec.id] = record
            } else {
                let saved = restoredModes(spec.id)
                let slots = declaredModes(spec).map { mode in
                    let engine =
                        saved[mode].map {
                            RefreshEngine(parameters: parameters, restoring: $0.record, now: now)
                        } ?? RefreshEngine(parameters: parameters, now: now)
                    return ModeSlot(mode: mode, engine: engine, preferredSize: saved[mode]?.preferredSize, wallOffsetMs: wallOffsetMs)
                }
                let record = ExtensionRecord(spec: spec, slots: slots, enabled: enabled, now: clock.now)
                restoreShownVersion(record)
                record.hasContent = hasContentDeclared[spec.id] ?? true
                next[spec.id] = record
                armRefreshTimers(record)
            }
        }
        for (id, record) in records where next[id] == nil {
            retire(record)
        }
        for record in next.values { loadCardTemplate(record) }
        records = next
    }

    /// The widget's `card_template`, read again at every configuration (an app update may
    /// have changed the file); one that cannot be used is dropped with an event.
    private func loadCardTemplate(_ record: ExtensionRecord) {
        guard let path = record.spec.cardTemplate else { return record.cardTemplate = nil }
        switch CardTemplate.load(path) {
        case .success(let template): record.cardTemplate = template
        case .failure(let error):
            record.cardTemplate = nil
            events.record(.error, record.id, reason: "card", error.description)
        }
    }

    /// The modes a widget keeps snapshots for; other points have none.
    private func declaredModes(_ spec: ExtensionSpec) -> [DisplayMode] {
        spec.point == .widget ? spec.modes.compactMap { DisplayMode(rawValue: $0.rawValue) } : []
    }

    /// New parameters for the modes kept (of the widget and its instances), a fresh engine
    /// for each mode added, and the pulls of each mode removed answered as if the extension were.
    private func reconfigureSlots(_ record: ExtensionRecord, _ parameters: RefreshParameters) {
        let declared = declaredModes(record.spec)
        let removed = record.slots.values.filter { !declared.contains($0.mode) }
        let added = declared.filter { record.slots[SlotKey(mode: $0, instance: nil)] == nil }.map {
            ModeSlot(mode: $0, engine: RefreshEngine(parameters: parameters, now: now), preferredSize: nil, wallOffsetMs: wallOffsetMs)
        }
        let slots = record.slots.values.filter { declared.contains($0.mode) } + added
        record.replaceSlots(slots)
        if record.budget == nil { record.budget = slots.first?.engine.budget }
        for slot in slots { handle(.reconfigured(parameters), record, slot) }
        if !removed.isEmpty {
            record.queue.removeAll { if case .update(_, let key) = $0 { !declared.contains(key.mode) } else { false } }
            for slot in removed { slot.refreshTimer = nil }
            answerWaitingPulls(record, removed, because: "mode no longer declared by extension \"\(record.id)\"")
        }
        armRefreshTimers(record)
    }

    /// Answers every pull waiting on `slots` with `reason` as the failure.
    func answerWaitingPulls(_ record: ExtensionRecord, _ slots: [ModeSlot], because reason: String) {
        for slot in slots {
            let last = slot.engine.state(at: now)
            let outcome = PullOutcome(
                result: .failed, delivery: .updated,
                state: SnapshotState(snapshot: last.snapshot, age: last.age, isFresh: false, error: reason),
                versionOffset: record.shownVersion.offset, mode: slot.mode, preferredSize: slot.preferredSize,
                instance: slot.instance)
            let pulls = slot.pendingPulls
            slot.pendingPulls.removeAll()
            slot.revalidations.removeAll()
            for completion in pulls.values { completion(outcome) }
        }
    }

    /// An extension removed from the configuration: whoever waits for it is answered.
    private func retire(_ record: ExtensionRecord) {
        for slot in record.slots.values { slot.refreshTimer = nil }
        record.startTimer = nil
        record.idleTimer = nil
        record.suspendTimer = nil
        let reason = "extension \"\(record.id)\" was removed from the configuration"
        answerWaitingPulls(record, Array(record.slots.values), because: reason)
        if case .action(_, _, _, let completion) = record.outstanding { completion(.failed(reason)) }
        record.outstanding = nil
        for case .action(_, let completion) in record.queue { completion(.failed(reason)) }
        record.queue.removeAll()
    }

    /// What an earlier run saved of each mode; a damaged file is reported and replaced.
    private func restoredModes(_ id: String) -> [DisplayMode: SavedMode] {
        do {
            return try store.loadModes(id, now: now)
        } catch {
            events.record(.error, id, "\(error); starting without a snapshot and with a full budget")
            return [:]
        }
    }

    /// Writes every record changed since the last write, and the exact versions shown (at
    /// shutdown).
    package func saveRecords() {
        writer.flush()
        saveExactShownVersions()
    }

    // MARK: Activation

    /// An extension or its app declared whether it has content; persisted when it changes (a
    /// peer repeating itself costs no write), and hosts are told.
    package func setHasContent(_ value: Bool, for id: String) {
        guard let record = records[id], record.hasContent != value || hasContentDeclared[id] != value else { return }
        let changed = record.hasContent != value
        record.hasContent = value
        hasContentDeclared[id] = value
        writer.hasContentChanged(record)
        if changed { onHasContentChanged?(id, value) }
    }

    /// The user's activation state, in effect at once; `saved` is called on the loop once
    /// `enabled.json` holds it, or with why not (kept in memory, written again every second).
    package func setEnabled(_ enabled: Bool, for ids: [String], then saved: DurableRecord.Completion? = nil) throws(RequestRejection) {
        for id in ids where records[id] == nil { throw .unknown(id) }
        for id in ids {
            enabledChoices[id] = enabled
            if let record = records[id] { setEnabled(enabled, record) }
        }
        enabledFile.save(ExtensionStore.encode(enabledChoices), then: saved)
    }

    /// Calls `completion` once `enabled.json` holds the newest choices, or with why not.
    package func whenEnabledSaved(then completion: @escaping DurableRecord.Completion) {
        enabledFile.whenWritten(then: completion)
    }

    private func setEnabled(_ enabled: Bool, _ record: ExtensionRecord) {
        guard record.enabled != enabled else { return }
        record.enabled = enabled
        // Scheduled refreshes wait while disabled (see `armRefreshTimer`).
        if enabled { armRefreshTimers(record) }
    }

    package func usableRecord(_ id: String, point: ExtensionPoint?) throws(RequestRejection) -> ExtensionRecord {
        guard let record = records[id] else { throw .unknown(id) }
        guard record.enabled else { throw .disabled(id) }
        if let point, record.spec.point != point { throw .wrongPoint(id, record.spec.point) }
        return record
    }
}
