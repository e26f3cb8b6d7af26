import ControlProtocol
import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import Histogram
import WireProtocol

/// The daemon's memory of one extension across its runs: refresh state, the request
/// the extension is working on, what waits for it, and its counters.
final class ExtensionRecord {
    let id: String
    var spec: ExtensionSpec
    var engine: RefreshEngine<EncodedJSON>
    /// The user's activation state (persisted).
    var enabled: Bool
    /// `false` after `setHasContent false`: hosts hide the extension.
    var hasContent = true
    var refreshTimer: EventSource?
    var startTimer: EventSource?
    var idleTimer: EventSource?
    /// Pulls waiting for the engine's answer.
    var pendingPulls: [PullToken: (PullOutcome) -> Void] = [:]
    /// The display of the last pull, used for scheduled and manual updates too.
    var displayMode: DisplayMode = .compact
    var maxSize = Size(width: 320, height: 160)
    /// What the extension is working on now (one request at a time).
    var outstanding: OutstandingRequest?
    /// Requests waiting for `ready` or for the outstanding one to finish.
    var queue: [QueuedRequest] = []
    var lastUsed: MonotonicInstant
    /// The last update's result (`newData`, `noData`, `failed`) and when it came.
    var lastResult: (result: String, at: MonotonicInstant)?
    var statistics = ExtensionStatistics()

    init(spec: ExtensionSpec, engine: RefreshEngine<EncodedJSON>, enabled: Bool, now: MonotonicInstant) {
        id = spec.id
        self.spec = spec
        self.engine = engine
        self.enabled = enabled
        lastUsed = now
    }

    /// Whether nothing is in flight or waiting: the extension may go idle.
    var isQuiet: Bool { outstanding == nil && queue.isEmpty }
}

/// A request sent to the extension and not answered yet.
enum OutstandingRequest {
    case update(RequestID, startedAt: MonotonicInstant)
    case action(RequestID, startedAt: MonotonicInstant, deadline: EventSource?, completion: (ActionOutcome) -> Void)

    var id: RequestID {
        switch self {
        case .update(let id, _), .action(let id, _, _, _): id
        }
    }
}

/// A request waiting to be sent.
enum QueuedRequest {
    case update(UpdateRequest)
    case action(items: [Item], completion: (ActionOutcome) -> Void)
}

/// How a pull was answered.
struct PullOutcome {
    var result: SnapshotResult
    var delivery: PullDelivery
    var state: SnapshotState<EncodedJSON>
}

/// How a `perform` ended.
enum ActionOutcome {
    case completed([Item])
    case failed(String)
}

/// Counters of one extension's requests.
struct ExtensionStatistics {
    var pullsCached = 0
    var pullsCoalesced = 0
    var pullsUpdated = 0
    var resultsNewData = 0
    var resultsNoData = 0
    var resultsFailed = 0
    /// Update round trips in µs; allocated on the first update (a histogram costs KiBs).
    var updateLatency: Histogram<UInt32>?

    mutating func recordUpdateLatency(_ duration: Duration) {
        if updateLatency == nil {
            updateLatency = Histogram(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .two)
        }
        _ = updateLatency?.record(UInt64(max(1, duration.wholeMicroseconds)))
    }
}

extension ExtensionRecord {
    /// Adds the extension's last update and its latency to its status line.
    func annotate(_ status: inout ProcessStatus, now: MonotonicInstant) {
        if let lastResult {
            status.lastResult = lastResult.result
            status.lastUpdateAgeMs = now.since(lastResult.at).wholeMicroseconds / 1000
        }
        if let histogram = statistics.updateLatency {
            status.updateLatencyP50Us = Int64(histogram.valueAtPercentile(50))
            status.updateLatencyP99Us = Int64(histogram.valueAtPercentile(99))
        }
        if !enabled { status.state += " (disabled)" }
    }
}
