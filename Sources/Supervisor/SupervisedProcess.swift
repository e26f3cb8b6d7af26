import ControlProtocol
import EventLoop
import Glibc

/// The life states of a supervised process (DESIGN §4, issue "launch").
enum ProcessState: String {
    case stopped, starting, running, idle, backoff, exited, fatal
}

/// What the daemon knows of one configured host, app or extension.
final class SupervisedProcess {
    let name: String
    let kind: ProcessKind
    var state: ProcessState = .stopped
    var pid: pid_t?
    var startedAt: MonotonicInstant?
    /// Why the process is not running, when something failed.
    var lastError: String?

    init(name: String, kind: ProcessKind) {
        self.name = name
        self.kind = kind
    }

    func status(now: MonotonicInstant) -> ProcessStatus {
        var status = ProcessStatus(name: name, kind: kind, state: state.rawValue)
        status.pid = pid
        status.uptimeMs = startedAt.map { now.since($0).wholeMicroseconds / 1000 }
        status.error = lastError
        return status
    }
}
