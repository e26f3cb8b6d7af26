import DaemonSupport
import ExtensiondPolicy

/// Suspension (`suspend_after`): an idle extension's cgroup frozen, and thawed again.
extension ProcessSupervisor {
    /// Freezes the cgroup of an idle extension (`suspend_after`): it is `suspended` until
    /// ``resume(_:)``. Where the group cannot be frozen (a v1 system without the freezer
    /// hierarchy) it stays idle. While the tree is past `pressure.warn` it is ended instead
    /// (reason `trim`), as the suspended ones were: frozen, it would only wait for a kill.
    package func suspend(_ process: SupervisedProcess) {
        guard process.state == .idle, let run = process.run, run.stopReason == nil, run.group.canFreeze else { return }
        if isMemoryShort() {
            events.record(.memoryWarning, process.name, reason: StopReason.trim.rawValue, "ended instead of suspended: the tree is past pressure.warn")
            return stop(process, reason: .trim)
        }
        do {
            try run.group.freeze()
        } catch {
            events.record(.error, process.name, "suspend: \(error)")
            return
        }
        enter(.suspended, process)
        process.statistics.suspensions += 1
        events.record(.suspend, process.name, "suspended: \(run.group) frozen")
    }

    /// Thaws a suspended extension: idle again, it reads what is sent to it.
    package func resume(_ process: SupervisedProcess) {
        guard process.state == .suspended, let run = process.run else { return }
        do {
            try run.group.thaw()
        } catch {
            events.record(.error, process.name, "resume: \(error)")
        }
        enter(.idle, process)
    }
}
