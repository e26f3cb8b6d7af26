import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import Glibc
import Output
import ProcessIsolation

/// The life states of a supervised process (DESIGN §4).
package enum ProcessState: String, CaseIterable {
    /// Not running, and not meant to be.
    case stopped
    /// Spawned, and an extension has not sent `ready` yet; or waiting for its volumes or
    /// its spawn (no pid yet).
    case starting
    /// A host or app running; an extension serving a request.
    case running
    /// An extension launched and ready but not serving.
    case idle
    /// An idle extension frozen after `suspend_after` (the cgroup freezer): it uses no
    /// CPU and keeps its memory; thawed before its next request.
    case suspended
    /// Waiting to be restarted after a crash.
    case backoff
    /// Ended on its own and not restarted (extensions, on-demand apps).
    case exited
    /// Kept failing to start; stays down until started by hand.
    case fatal
}

/// What the daemon knows of one configured host, app or extension, across its runs.
package final class SupervisedProcess {
    package let name: String
    /// Its configuration; a new one (reload) takes effect from the next start.
    package var definition: ProcessDefinition {
        didSet { restartPolicy.adopt(definition.restart) }
    }
    /// Written by ``ProcessSupervisor`` only: it alone changes state and sends signals.
    package var state: ProcessState = .stopped
    /// The current run, while there is one.
    package var run: ProcessRun?
    /// Why the process is not running, when something failed.
    var lastError: String?
    /// Counts failed starts; its parameters come from the definition.
    var restartPolicy = RestartPolicy()
    /// When it last began or finished serving a request; the kill policy spares the
    /// Armed while in `backoff`.
    var restartTimer: EventSource?
    /// Captured stdout and stderr.
    package let output: OutputLog
    /// The budget of its output capture, made at its first launch and kept across runs
    /// while `output_rate` stays.
    var capture: OutputCapture?
    /// `output_rate`: bytes per second of its output captured.
    var outputRate = 1 << 20
    package var statistics = ProcessStatistics()

    package var kind: ProcessKind { definition.kind }

    init(name: String, definition: ProcessDefinition, output: OutputLog) {
        self.name = name
        self.definition = definition
        self.output = output
        restartPolicy.adopt(definition.restart)
    }

    /// Whether a run exists (starting, running, idle, or being stopped).
    package var isAlive: Bool { run != nil }
}

extension RestartPolicy {
    /// Takes the configured backoff and retries, keeping the count of failed starts.
    mutating func adopt(_ settings: RestartSettings?) {
        let settings = settings ?? RestartSettings()
        backoff = Backoff(base: settings.backoffBase, cap: settings.backoffMax)
        maxRetries = settings.retries
    }
}

/// Counters and latencies of one process, kept across runs.
package struct ProcessStatistics {
    package var launches = 0
    /// spawn → running (hosts, apps) or spawn → `ready` (extensions): the last, and all.
    private(set) var lastLaunchLatency: Duration?
    package private(set) var launchLatency = LatencyBuckets()
    /// The highest RSS of any run: the kernel's `VmHWM` where it was read, else the
    /// highest RSS any `status`, `stats` or metrics read saw.
    package private(set) var peakRSSBytes: UInt64 = 0
    /// The highest cgroup usage of ended runs.
    package var peakMemoryBytes: UInt64 = 0
    package var kills: [StopReason: Int] = [:]
    /// `memoryWarning` messages sent, by level.
    package var memoryWarnings = MemoryWarningCounts()
    /// Times an extension was suspended.
    package var suspensions = 0

    mutating func recordLaunch(_ latency: Duration) {
        lastLaunchLatency = latency
        launchLatency.record(latency)
    }

    /// Keeps the highest of the peaks seen.
    package mutating func noteResident(_ bytes: UInt64?) {
        peakRSSBytes = max(peakRSSBytes, bytes ?? 0)
    }
}
/// `memoryWarning` messages sent to one extension, by level: two counters, not a
/// dictionary (a heap allocation per configured process).
package struct MemoryWarningCounts {
    /// Its own `memory_high` crossed.
    package var high = 0
    /// The tree's `pressure.warn` crossed.
    package var warn = 0
}

extension SupervisedProcess: IsolatedProcess {}
