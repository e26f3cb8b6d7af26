import ControlProtocol
import EventLoop
import ExtensiondPolicy
import Glibc

/// The life states of a supervised process (DESIGN §4).
enum ProcessState: String {
    /// Not running, and not meant to be.
    case stopped
    /// Spawned; an extension has not sent `ready` yet.
    case starting
    /// A host or app running; an extension serving a request.
    case running
    /// An extension launched and ready but not serving.
    case idle
    /// Waiting to be restarted after a crash.
    case backoff
    /// Ended on its own and not restarted (extensions, on-demand apps).
    case exited
    /// Kept failing to start; stays down until started by hand.
    case fatal
}

/// What the daemon knows of one configured host, app or extension, across its runs.
final class SupervisedProcess {
    let name: String
    var definition: ProcessDefinition
    var state: ProcessState = .stopped
    /// The current run, while there is one.
    var run: ProcessRun?
    /// Why the process is not running, when something failed.
    var lastError: String?
    var restartPolicy = RestartPolicy()
    /// When it last began or finished serving a request; the kill policy spares the
    /// most recently used first. `nil` until it has served one.
    var lastUsed: MonotonicInstant?
    /// Armed while in `backoff`.
    var restartTimer: EventSource?
    /// Captured stdout and stderr.
    let output: OutputLog
    var statistics = ProcessStatistics()

    var kind: ProcessKind { definition.kind }

    init(name: String, definition: ProcessDefinition, output: OutputLog) {
        self.name = name
        self.definition = definition
        self.output = output
    }

    /// Whether a run exists (starting, running, idle, or being stopped).
    var isAlive: Bool { run != nil }
}

/// Counters and latencies of one process, kept across runs.
struct ProcessStatistics {
    var launches = 0
    /// spawn → running (hosts, apps) or spawn → `ready` (extensions).
    var lastLaunchLatency: Duration?
    var peakRSSBytes: UInt64 = 0
    var kills: [String: Int] = [:]
}
