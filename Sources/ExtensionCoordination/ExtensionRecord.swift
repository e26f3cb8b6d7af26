import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import HostProtocol
import WireProtocol

/// The daemon's memory of one extension across its runs: refresh state, the request
/// the extension is working on, what waits for it, and its counters.
package final class ExtensionRecord {
    package let id: String
    package var spec: ExtensionSpec
    /// The declared display modes, each with its own refresh state, of the widget and of
    /// the instances hosts pulled; actions have none.
    package private(set) var slots: [SlotKey: ModeSlot]
    /// The refresh budget all slots share (handed to each engine around its events).
    package var budget: TokenBucket?
    /// The user's activation state (persisted).
    package var enabled: Bool
    /// `false` after `setHasContent false`: hosts hide the extension.
    package var hasContent = true
    /// `false` while hosts report on the widget itself and none shows it (`visible`).
    var isShown = true
    /// Instances no connected host shows or uses: their scheduled refreshes wait.
    var hiddenInstances: Set<String> = []
    /// Whether memory admission holds its scheduled refreshes back.
    var isHeldForMemory = false
    var startTimer: (any CoordinatorTimer)?
    var idleTimer: (any CoordinatorTimer)?
    /// Freezes the idle run after `suspend_after`.
    var suspendTimer: (any CoordinatorTimer)?
    /// Since when the run has had nothing in flight (`nil` while it serves a request): the
    /// idle and suspend timers count from here.
    var quietSince: MonotonicInstant?
    /// The mode of the last pull: the one a manual refresh or an app's reload updates.
    var lastPulledMode: DisplayMode
    /// What the extension is working on now (one request at a time).
    var outstanding: OutstandingRequest?
    /// Requests waiting for `ready` or for the outstanding one to finish.
    var queue: [QueuedRequest] = []
    package var lastUsed: MonotonicInstant
    /// The last update's result (`newData`, `noData`, `failed`) and when it came.
    var lastResult: (result: String, at: MonotonicInstant)?
    package var statistics = ExtensionStatistics()
    /// The version hosts may have seen, as recorded in `state_dir` (see ``ShownVersion``).
    var shownVersion = ShownVersion(shown: 0, offset: 0)
    /// The version the `.version` file holds: versions up to it are shown without a write.
    var reservedVersion: UInt64 = 0
    /// Why the last write of its state failed; nil once one succeeds.
    var storageError: String?
    /// What hosts last said they render for, sent with every update (docs/PROTOCOL.md §6).
    var environment = RenderEnvironment()
    /// When a change of `environment` last refreshed the widget.
    var environmentRefreshedAt: MonotonicInstant?
    /// The Adaptive Card template of `card_template`, listed to hosts; `nil` without one or
    /// when it could not be read (an event says why).
    package var cardTemplate: EncodedJSON?
    /// The largest mode its last result said it offers (`largestMode`), for hosts' `list`.
    package var largestMode: DisplayMode?
    /// Slots a host just switched the widget to: their next update says `modeChange`.
    var modeChanged: Set<SlotKey> = []
    /// It was warned that a `preferredSize` exceeded its place (once per daemon run).
    var warnedOversize = false

    init(spec: ExtensionSpec, slots: [ModeSlot], enabled: Bool, now: MonotonicInstant) {
        id = spec.id
        self.spec = spec
        self.slots = Dictionary(uniqueKeysWithValues: slots.map { ($0.key, $0) })
        budget = slots.first?.engine.budget
        lastPulledMode = slots.first?.mode ?? .compact
        self.enabled = enabled
        lastUsed = now
    }

    /// Whether the slots of `instance` (the widget itself when nil) are shown.
    func isShown(instance: String?) -> Bool {
        instance.map { !hiddenInstances.contains($0) } ?? isShown
    }

    /// Whether some host shows the widget itself or one of its instances.
    var isVisible: Bool {
        isShown || slots.keys.contains { $0.instance.map { !hiddenInstances.contains($0) } ?? false }
    }

    /// The widget's own slots in declaration order, then its instances' by name.
    var orderedSlots: [ModeSlot] {
        let own = spec.modes.compactMap { DisplayMode(rawValue: $0.rawValue).flatMap { slots[SlotKey(mode: $0, instance: nil)] } }
        let instances = slots.values.filter { $0.instance != nil }
            .sorted { ($0.instance ?? "", $0.mode.rawValue) < ($1.instance ?? "", $1.mode.rawValue) }
        return own + instances
    }

    /// The widget's own slot of the last pull's mode, or the first declared one when that
    /// mode was dropped.
    var currentSlot: ModeSlot? { slots[SlotKey(mode: lastPulledMode, instance: nil)] ?? orderedSlots.first }

    /// The declared modes.
    package var modes: [DisplayMode] { orderedSlots.filter { $0.instance == nil }.map(\.mode) }

    /// The first of ``modes``, without building them (every push asks).
    package var firstMode: DisplayMode? {
        spec.modes.lazy.compactMap { DisplayMode(rawValue: $0.rawValue) }.first { self.slots[SlotKey(mode: $0, instance: nil)] != nil }
    }

    /// Instances hosts made up (pulled without a user adding them), each counted once
    /// whatever its modes.
    var madeUpInstanceCount: Int { Set(slots.values.filter { !$0.isAdded }.compactMap(\.instance)).count }

    /// After a reconfiguration: `slots` exactly, the removed ones retired by the caller.
    func replaceSlots(_ slots: [ModeSlot]) {
        self.slots = Dictionary(uniqueKeysWithValues: slots.map { ($0.key, $0) })
    }

    /// A slot for an instance a host pulled for the first time.
    func add(_ slot: ModeSlot) {
        slots[slot.key] = slot
    }

    /// Forgets every slot of `instance` and returns them.
    func removeSlots(of instance: String) -> [ModeSlot] {
        let removed = slots.values.filter { $0.instance == instance }
        for slot in removed { slots[slot.key] = nil }
        hiddenInstances.remove(instance)
        return removed
    }

    /// What `state_dir` keeps: the widget's own modes (instances live as long as the
    /// daemon), each with the shared budget.
    var savedModes: [DisplayMode: SavedMode] {
        var saved: [DisplayMode: SavedMode] = [:]
        for slot in slots.values where slot.instance == nil {
            if let budget { slot.engine.budget = budget }
            saved[slot.mode] = slot.saved
        }
        return saved
    }

    /// Whether some mode has an update in flight.
    var isUpdating: Bool { slots.values.contains { $0.engine.updateInFlight != nil } }

    /// The highest version of any mode's snapshot (versions are kept per mode).
    var highestVersion: UInt64 {
        // A loop, not `map`: every pull asks, and the engines are not copied.
        var highest: UInt64 = 0
        for slot in slots.values { highest = max(highest, slot.engine.record.snapshot?.version ?? 0) }
        return highest
    }

    /// Whether nothing is in flight or waiting: the extension may go idle.
    var isQuiet: Bool { outstanding == nil && queue.isEmpty }

    /// The outstanding update ends without a result (a deadline kill, a crash): it is
    /// the last result, `failed`, and its time to failure counts among the latencies.
    func abandonOutstandingUpdate(at now: MonotonicInstant) {
        guard case .update(_, _, let startedAt) = outstanding else { return }
        outstanding = nil
        lastResult = ("failed", now)
        statistics.count(UpdateOutcome.failed)
        statistics.updateLatency.record(now.since(startedAt))
    }
}

/// A request sent to the extension and not answered yet.
package enum OutstandingRequest {
    case update(RequestID, ModeUpdate, startedAt: MonotonicInstant)
    case action(RequestID, startedAt: MonotonicInstant, deadline: (any CoordinatorTimer)?, completion: (ActionOutcome) -> Void)

    var id: RequestID {
        switch self {
        case .update(let id, _, _), .action(let id, _, _, _): id
        }
    }
}

/// An update of one slot's engine.
package struct ModeUpdate: Equatable {
    var key: SlotKey
    var id: UpdateID
}

/// A request waiting to be sent.
package enum QueuedRequest {
    case update(UpdateRequest, SlotKey)
    case action(items: [Item], completion: (ActionOutcome) -> Void)
}

/// What waits for a pull's answer when the cache cannot give it at once (see
/// ``ExtensionCoordinator/pull(_:mode:maxSize:placeLimit:instance:params:revalidated:completion:)``).
package struct PullWaiters {
    package var revalidated: ((PullOutcome) -> Void)?
    package var completion: (PullOutcome) -> Void

    package init(revalidated: ((PullOutcome) -> Void)?, completion: @escaping (PullOutcome) -> Void) {
        self.revalidated = revalidated
        self.completion = completion
    }
}

/// How a pull was answered.
package struct PullOutcome {
    package var result: SnapshotResult
    package var delivery: PullDelivery
    package var state: SnapshotState<EncodedJSON>
    /// Added to the engine's versions (see ``ShownVersion``).
    package var versionOffset: UInt64
    /// Answered from an expired snapshot while an update replaces it.
    package var expired = false
    /// The display mode answered; `nil` when the answer is not about a mode's snapshot.
    package var mode: DisplayMode?
    /// The extension's preferred size for that mode's snapshot.
    package var preferredSize: Size?
    /// The date of the timeline entry the snapshot came from, if it did.
    package var date: UnixTime?
    /// The instance answered, if the pull named one.
    package var instance: String?
    /// The answered slot's last answer line, which a cached pull's answer may reuse.
    package var answerLines: SnapshotLineCache?
}

extension PullOutcome {
    init(_ answer: PullAnswer<EncodedJSON>, slot: ModeSlot, versionOffset: UInt64) {
        self.init(
            result: SnapshotResult(answer.result), delivery: answer.delivery,
            state: answer.state, versionOffset: versionOffset, expired: answer.isRevalidating,
            mode: slot.mode, preferredSize: slot.preferredSize, instance: slot.instance, answerLines: slot.answerLines)
    }
}

extension SnapshotResult {
    /// The wire's name for the engine's result (by case: every pull asks, and no text is compared).
    init(_ result: PullResult) {
        switch result {
        case .cached: self = .cached
        case .newData: self = .newData
        case .noData: self = .noData
        case .failed: self = .failed
        }
    }
}

/// How a `perform` ended.
package enum ActionOutcome {
    case completed([Item])
    case failed(String)
}

extension ExtensionRecord {
    /// Adds the extension's last update and its latency to its status line.
    package func annotate(_ status: inout ProcessStatus, now: MonotonicInstant) {
        if let lastResult {
            status.lastResult = lastResult.result
            status.lastUpdateAgeMs = now.since(lastResult.at).wholeMicroseconds / 1000
        }
        if let histogram = statistics.updateLatency {
            status.updateLatencyP50Us = Int64(histogram.percentile(50))
            status.updateLatencyP99Us = Int64(histogram.percentile(99))
        }
        if !enabled { status.state += " (disabled)" }
        if spec.point == .widget { status.visible = isVisible }
        if let storageError { status.error = (status.error.map { $0 + "; " } ?? "") + storageError }
    }

    /// Adds the extension's counters, budget and next refresh to its stats line.
    package func annotate(_ stats: inout ProcessStats, now: MonotonicInstant) {
        stats.pullsCached = statistics.pullsCached
        stats.pullsCoalesced = statistics.pullsCoalesced
        stats.pullsUpdated = statistics.pullsUpdated
        stats.resultsNewData = statistics.resultsNewData
        stats.resultsNoData = statistics.resultsNoData
        stats.resultsFailed = statistics.resultsFailed
        stats.budgetLeft = budget?.tokens(at: now.policyInstant)
        if let next = slots.values.compactMap(\.engine.record.schedule.nextRefresh).min() {
            let wait: Duration = next - now.policyInstant
            stats.nextRefreshInMs = wait.wholeMicroseconds / 1000
        }
    }
}
