import ControlProtocol
import EventLoop
import LinuxProcess

extension SupervisedProcess {
    /// This process's line of `supervisorctl status`, read now from /proc and its cgroup.
    package func status(now: MonotonicInstant) -> ProcessStatus {
        var status = ProcessStatus(name: name, kind: kind, state: state.rawValue)
        status.error = lastError
        status.autostart = definition.autostart
        status.memoryLimitBytes = definition.limits.memoryMax?.bytes
        guard let run else { return status }
        status.pid = run.pid
        status.uptimeMs = now.since(run.launchedAt).wholeMicroseconds / 1000
        status.rssBytes = (try? run.residentPages?.number(at: 1)).map { $0 * ProcessMemory.pageSize }
        statistics.noteResident(status.rssBytes)
        status.memoryCurrentBytes = try? run.groupUsage?.number()
        return status
    }
}
