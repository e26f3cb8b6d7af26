import Cgroup
import EventLoop
import ExtensiondPolicy
import Glibc
import LinuxProcess

/// One run of a supervised process: its pid and pidfd, its cgroup, and the event
/// sources watching it. Ends when the main process has exited and the cgroup is gone.
package final class ProcessRun {
    let process: SpawnedProcess
    package let group: ControlGroup
    package let launchedAt: MonotonicInstant
    /// The pidfd's exit notification.
    var exitWatch: EventSource?
    /// The read ends of the stdout and stderr pipes.
    var output: [Connection] = []
    /// Kernel OOM kills inside the group (v1 eventfd, v2 memory.events watch).
    var oomWatch: (source: CgroupEventSource, event: EventSource)?
    /// `memory.oom_control`'s or `memory.events`' oom_kill count at launch.
    var oomKillsAtLaunch: UInt64 = 0
    /// Set when the daemon asked the process to go: the reason recorded at exit.
    package var stopReason: StopReason?
    /// Escalates a stop to SIGKILL of the whole group after the grace period.
    var killTimer: EventSource?
    /// Gives the run up if its main process is not reaped soon after SIGKILL.
    var abandonTimer: EventSource?
    /// What `process_mrelease` did after the run's SIGKILL; `nil` until the call, made off
    /// the loop, has returned.
    package private(set) var memoryRelease: MemoryRelease?
    /// Waiting for ``memoryRelease``.
    private var onMemoryReleased: [() -> Void] = []
    /// Run when the run is over (after the exit has been handled).
    var onEnd: [() -> Void] = []
    /// The extension's channel on fd 3, for extensions.
    package var channel: ExtensionChannel?
    /// Armed when the extension closed fd 3: see ``ProcessSupervisor/channelClosed(_:)``.
    var channelClosedTimer: EventSource?
    /// An extension's group usage when it last became idle or active (0 from its launch:
    /// the group is new), what the kill policy measures its growth from; `nil` for hosts
    /// and apps, and when the usage could not be read.
    var usageAtBandEntry: UInt64?
    /// `/proc/PID/statm` and the group's usage file, opened at first use and kept.
    lazy var residentPages = try? CounterFile(path: "/proc/\(pid)/statm")
    lazy var groupUsage = try? CounterFile(path: group.memoryUsagePath)

    package var pid: pid_t { process.pid }

    /// How much the group's usage grew from ``usageAtBandEntry`` to `usage`: 0 when it
    /// shrank or there is no starting figure.
    package func growth(to usage: UInt64) -> UInt64 {
        guard let start = usageAtBandEntry, usage > start else { return 0 }
        return usage - start
    }

    /// The group's usage now, read through the file kept open: no path lookup, and no file
    /// the kernel must allocate (and charge to the daemon) on the pressure path.
    package func memoryUsage() -> UInt64? {
        try? groupUsage?.number()
    }

    /// Records the group's usage now as the start of the extension's growth.
    func noteBandEntry() {
        usageAtBandEntry = try? groupUsage?.number()
    }

    init(process: SpawnedProcess, group: ControlGroup, launchedAt: MonotonicInstant) {
        self.process = process
        self.group = group
        self.launchedAt = launchedAt
    }

    /// Stops watching: the run is over.
    func cancelWatches() {
        exitWatch = nil
        killTimer = nil
        abandonTimer = nil
        oomWatch = nil
        for connection in output {
            connection.drain()
            connection.close()
        }
        output = []
        channel?.close()
        channel = nil
        residentPages = nil
        groupUsage = nil
    }

    /// Calls `body` on the loop once ``memoryRelease`` is known (at once when it is).
    package func whenMemoryReleased(_ body: @escaping () -> Void) {
        guard memoryRelease == nil else { return body() }
        onMemoryReleased.append(body)
    }

    func memoryReleased(_ release: MemoryRelease) {
        memoryRelease = release
        let waiting = onMemoryReleased
        onMemoryReleased = []
        for body in waiting { body() }
    }
}
