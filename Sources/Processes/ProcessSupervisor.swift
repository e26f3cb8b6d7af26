/// The process table and the life of each run: definitions to processes, launches in their
/// cgroups, stops, kills, exits, restarts, OOM notices, the daemon's cgroup tree.
///
/// This module owns every process's state and is the only sender of signals to supervised
/// processes. It must not decide when an extension runs (ExtensionCoordination) or whom
/// pressure kills (Pressure); it reports launches, exits and messages through callbacks.
import Cgroup
import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import Glibc
import LinuxProcess
import Output
import ProcessIsolation
import Sockets
import WireProtocol

/// Starts, stops and restarts supervised processes, each in its own cgroup, captures
/// their output, notices their exits and kernel OOM kills, and records all of it.
package final class ProcessSupervisor {
    let loop: EventLoop
    let tree: CgroupTree
    let events: EventLog
    var random = SystemRandomNumberGenerator()
    /// The daemon's environment minus what belongs to the daemon alone.
    let baseEnvironment: [String: String]
    /// Called with an extension's new channel once it is spawned; the extension
    /// runtime takes over the protocol from there.
    package var onExtensionMessage: ((SupervisedProcess, ExtensionToSupervisor) -> Void)?
    /// Called once a process has been spawned and is watched.
    package var onLaunched: ((SupervisedProcess) -> Void)?
    /// Called after a run ended and its state was settled.
    package var onRunEnded: ((SupervisedProcess, _ reason: StopReason) -> Void)?
    /// Whether the tree is past `pressure.warn`: then an idle extension due for suspension
    /// is ended instead (``suspend(_:)``).
    package var isMemoryShort: () -> Bool = { false }
    /// Users, groups, containers, data directories and sandboxes.
    package let isolation: Isolation
    /// Main processes of runs given up, reaped when they exit.
    private let givenUp: GivenUpRuns
    /// Groups of ended runs, removed once empty.
    package let removals: GroupRemovals
    /// Runs `process_mrelease` off the loop, at the loop's nice, as lmkd's reaper runs at
    /// lmkd's (`nil`: no thread could be had; on the loop then).
    let releases: BlockingWorker?
    /// Launches waiting for a volume of their process to be made and mounted beside the
    /// loop, by process, with the run's extra arguments.
    var awaitingVolumes: [String: [String]] = [:]
    /// Runs the spawns, one at a time, beside the loop (`nil`: no thread could be had; on
    /// the loop then). Its thread is the parent of every child: see ``spawn(_:for:)``.
    let spawner: BlockingWorker?
    /// Launches whose spawn is under way on ``spawner``, by process.
    var spawning: [String: PendingLaunch] = [:]
    /// Launches waiting for a place on ``spawner``, in order (see ``spawnsAhead``).
    var waitingForSpawner: [WaitingLaunch] = []
    /// The limits each process's kept cgroup directories hold (v1: pids, cpu), by process.
    var keptLimits: [String: CgroupLimits] = [:]
    /// Processes whose kept directories were made ahead (``makeKeptGroupAhead(_:)``) and
    /// not run in since: their freezer group is thawed (no run froze it).
    var keptAhead: Set<String> = []
    /// Called when a launch that waited for its volumes failed (its caller had returned).
    package var onDeferredLaunchFailed: ((SupervisedProcess, LaunchError) -> Void)?

    /// `hostSocket` is passed to hosts and apps as `EXTENSIOND_HOST_SOCKET`; `releases` runs
    /// `process_mrelease` (made with `keepsLoopPriority`, before the daemon sets its
    /// scheduling: see ``BlockingWorker/init(loop:keepsLoopPriority:)``).
    package init(
        loop: EventLoop, tree: CgroupTree, events: EventLog, isolation: Isolation, hostSocket: String, releases: BlockingWorker?
    ) {
        self.loop = loop
        self.tree = tree
        self.events = events
        self.isolation = isolation
        givenUp = GivenUpRuns(loop: loop, events: events)
        removals = GroupRemovals(loop: loop, events: events)
        self.releases = releases
        spawner = try? BlockingWorker(loop: loop)
        var environment = Self.inheritedEnvironment()
        environment[ExtensionEnvironment.hostSocketVariable] = hostSocket
        baseEnvironment = environment
    }

    // MARK: Starting

    /// Launches `process` unless it is alive or its launch is under way. A failure to
    /// launch is recorded, shown in status, and (for restarting processes) counts as a crash.
    /// `extraArguments` follow the configured command for this run only (an app opening a URL).
    /// The launch may wait for the process's volumes, and its spawn runs beside the loop
    /// (its state is `starting` meanwhile): a spawn that fails is recorded the same way
    /// when it comes back, and reported to ``onDeferredLaunchFailed``. `then` hears how the
    /// spawn went (nil: spawned, or waiting for volumes), unless this throws.
    package func start(
        _ process: SupervisedProcess, extraArguments: [String] = [], then outcome: ((LaunchError?) -> Void)? = nil
    ) throws(LaunchError) {
        guard !process.isAlive, !isLaunching(process) else { return whenSpawned(process, outcome) }
        process.restartTimer = nil
        guard spawning.count < Self.spawnsAhead else { return waitForSpawner(process, extraArguments, outcome) }
        do throws(LaunchError) {
            try launch(process, extraArguments: extraArguments, then: outcome)
        } catch {
            launchFailed(process, error)
            throw error
        }
    }

    /// Starts `process` after a manual request: clears `fatal` and the restart history.
    package func startByHand(_ process: SupervisedProcess, then outcome: ((LaunchError?) -> Void)? = nil) throws(LaunchError) {
        process.restartPolicy.reset()
        if !process.isAlive && !isLaunching(process) { process.state = .stopped }
        try start(process, then: outcome)
    }

    /// Records a launch that failed; the process rests, backs off or is stopped.
    func launchFailed(_ process: SupervisedProcess, _ error: LaunchError, stopped: Bool = false) {
        process.lastError = error.description
        events.record(.error, process.name, error.description)
        if stopped {
            process.state = .stopped
        } else {
            settleAfterExit(process, ranFor: .zero, reason: .launchFailed)
        }
    }

    private func launch(_ process: SupervisedProcess, extraArguments: [String], then outcome: ((LaunchError?) -> Void)?) throws(LaunchError) {
        let definition = process.definition
        guard let executable = definition.launch.command.first else { throw .emptyCommand }
        let resolved: String
        do throws(SpawnError) {
            resolved = try ExecutableLookup.resolve(executable, environment: baseEnvironment.merging(definition.launch.environment) { $1 })
        } catch {
            throw .spawn(error)
        }
        let isolated: IsolatedLaunch
        do throws(IsolationError) {
            let prepared = try isolation.prepare(process, executable: resolved) { [weak self, weak process] in
                guard let self, let process else { return }
                self.volumesReady(process)
            }
            guard let prepared else {
                awaitingVolumes[process.name] = extraArguments
                process.state = .starting
                outcome?(nil)
                return
            }
            isolated = prepared
        } catch {
            throw .isolation(error)
        }
        for notice in isolated.notices { events.record(.error, process.name, notice) }
        // The configured environment wins over what isolation sets, which wins over the daemon's.
        var environment = baseEnvironment.merging(isolated.environment) { _, isolation in isolation }
            .merging(definition.launch.environment) { _, configured in configured }
        let group: ControlGroup
        do throws(CgroupError) {
            group = try tree.group(Self.cgroupKind(definition.kind), id: process.name, keptExist: keptLimits[process.name] != nil)
        } catch {
            throw .cgroup(error)
        }
        // The previous run's group is reused; whatever is still dying in it goes on dying.
        removals.cancel(group)
        let limits = definition.limits.cgroupLimits
        do throws(CgroupError) {
            // A kept freezer group may have been left frozen by a run given up.
            let madeAhead = keptAhead.remove(process.name) != nil
            if group.reusesKept && group.canFreeze && !madeAhead { try group.thaw() }
            try group.apply(limits, kept: keptLimits[process.name])
        } catch {
            discard(group, of: process)
            throw .cgroup(error)
        }
        keptLimits[process.name] = limits
        let taskFiles: OpenTaskFiles
        do throws(SpawnError) {
            taskFiles = try OpenTaskFiles(group.spawnPlacement)
        } catch {
            discard(group, of: process)
            throw .spawn(error)
        }
        // Two pipes: stdout and stderr are logged apart. The ends close themselves on every
        // way out; only what a connection takes over stays open.
        let isExtension = definition.kind == .extension
        let stdout = try childEnds(.pipe, "stdout pipe for \(process.name)", discarding: group, of: process)
        let stderr = try childEnds(.pipe, "stderr pipe for \(process.name)", discarding: group, of: process)
        var channel: ChildEnds?
        var extensionSocket: Int32?
        if isExtension {
            let ends = try childEnds(.socketPair, "socketpair for \(process.name)", discarding: group, of: process)
            extensionSocket = ends.child.rawValue
            channel = consume ends
        }

        if isExtension {
            environment.removeValue(forKey: ExtensionEnvironment.hostSocketVariable)
            environment[ExtensionEnvironment.fdVariable] = "\(ExtensionEnvironment.socketDescriptor)"
            environment[ExtensionEnvironment.extensionIDVariable] = process.name
        }
        let request = SpawnRequest(
            executable: executable,
            arguments: Array(definition.launch.command.dropFirst()) + extraArguments,
            environment: environment,
            workingDirectory: definition.launch.workingDirectory,
            user: isolated.user,
            group: isolated.group,
            cgroup: taskFiles.placement,
            // The kernel's own OOM killer must also take an extension before a host.
            oomScoreAdjustment: isExtension ? OOMScore.extensions : OOMScore.hostsAndApps,
            extensionSocket: extensionSocket,
            standardOutput: stdout.child.rawValue,
            standardError: stderr.child.rawValue,
            supplementaryGroups: isolated.supplementaryGroups,
            sandbox: isolated.sandbox,
            // A root extension can leave its cgroup: its PID namespace still ends it all.
            pidNamespaceWhenRoot: isExtension
        )
        let pending = PendingLaunch(
            group: group, taskFiles: taskFiles, stdout: stdout, stderr: stderr, channel: channel, launchedAt: MonotonicInstant.current())
        if let outcome { pending.onSpawned.append(outcome) }
        spawning[process.name] = pending
        process.state = .starting
        spawn(request, for: process)
    }

    // MARK: Readiness and signals

    /// The extension said `ready`: it is idle, and its launch latency is recorded.
    package func markReady(_ process: SupervisedProcess) -> Duration? {
        enter(.idle, process)
        if let run = process.run { process.statistics.recordLaunch(MonotonicInstant.current().since(run.launchedAt)) }
        return process.statistics.lastLaunchLatency
    }

    /// A ready extension begins (`true`) or ends serving a request.
    package func markServing(_ process: SupervisedProcess, _ serving: Bool) {
        guard process.isAlive else { return }
        enter(serving ? .running : .idle, process)
    }

    /// Moves an extension to `state`; when that changes its kill band, its growth is
    /// measured from here on.
    func enter(_ state: ProcessState, _ process: SupervisedProcess) {
        guard process.state != state else { return }
        process.state = state
        process.run?.noteBandEntry()
    }

    /// Sends `signal` to the main process of the current run (`supervisorctl signal`);
    /// `false` when there is no run.
    package func signal(_ process: SupervisedProcess, _ signal: Int32) throws -> Bool {
        guard let run = process.run else { return false }
        try run.process.descriptor.send(signal: signal)
        return true
    }

    // MARK: Stopping

    /// Kills the whole run of `process` now and counts the kill under `reason`. `message`,
    /// when given, is recorded as the kill event (the pressure responder records its own,
    /// with the kill's figures, once the group is empty). Returns when the first signal
    /// was sent; `nil` without a run.
    @discardableResult
    package func kill(_ process: SupervisedProcess, reason: StopReason, message: String?) -> MonotonicInstant? {
        guard let run = process.run else { return nil }
        run.stopReason = reason
        process.statistics.kills[reason, default: 0] += 1
        if let message { events.record(.kill, process.name, reason: reason.rawValue, message) }
        return killRun(of: process)
    }

    /// SIGKILL to everything of the run, its main process's memory released at once
    /// (`process_mrelease`, as lmkd does), then ``exitBound`` for it to be reaped before
    /// the run is given up, so that every stop ends.
    @discardableResult
    func killRun(of process: SupervisedProcess) -> MonotonicInstant? {
        guard let run = process.run else { return nil }
        run.killTimer = nil
        let signalled = killEverything(of: run, process: process, mainReaped: false)
        releaseMemory(of: run)
        if run.abandonTimer == nil {
            run.abandonTimer = loop.addTimer(after: Self.exitBound) { [unowned self, unowned process] in
                self.abandon(process)
            }
        }
        return signalled
    }

    /// The only sender of SIGKILL: to the main process through its pidfd (unless it was
    /// reaped: its pid may be reused), to everything in the run's cgroup, and to every
    /// descendant of those that left the cgroup, each through a pidfd. Descendants are
    /// found through /proc before anyone dies, since a dead parent's children are
    /// reparented. An escape is recorded as a kill event. Returns when the first signal
    /// was sent.
    @discardableResult
    func killEverything(of run: ProcessRun, process: SupervisedProcess, mainReaped: Bool) -> MonotonicInstant {
        // Nothing to walk for a run that cannot leave its group: the main process is
        // signalled before any file is read (under pressure those reads can wait).
        let strays = run.process.mayLeaveItsGroup ? strays(of: run, mainReaped: mainReaped) : (pids: [], descriptors: [])
        if !mainReaped { _ = try? run.process.descriptor.send(signal: SIGKILL) }
        let signalled = MonotonicInstant.current()
        killGroup(of: run, process: process)
        for descriptor in strays.descriptors {
            _ = try? descriptor.send(signal: SIGKILL)
        }
        if !strays.pids.isEmpty {
            let pids = strays.pids.sorted().map { $0 == run.pid ? "\($0) (the main process)" : "\($0)" }.joined(separator: ", ")
            events.record(
                .kill, process.name, reason: (run.stopReason ?? .exited).rawValue,
                "pid \(pids) had left \(run.group): killed through pidfd")
        }
        return signalled
    }

    /// The run's processes outside its group (the main process among them when it left),
    /// and pidfds of those but the main process that still descend from the run. Taken
    /// before any signal, while the parent links hold: once the main process dies its
    /// children are reparented, and a pid checked later could be a new process's.
    private func strays(of run: ProcessRun, mainReaped: Bool) -> (pids: Set<pid_t>, descriptors: [ProcessDescriptor]) {
        let members = Set((try? run.group.processes()) ?? [])
        let roots = mainReaped ? members : members.union([run.pid])
        var escaped = ProcessTree.descendants(of: roots).subtracting(members)
        if !mainReaped, !members.contains(run.pid), ProcessTree.entry(of: run.pid)?.isRunning == true { escaped.insert(run.pid) }
        let family = roots.union(escaped)
        let descriptors = escaped.subtracting([run.pid]).sorted().compactMap { pid -> ProcessDescriptor? in
            guard let descriptor = try? ProcessDescriptor.open(pid: pid),
                let parent = ProcessTree.entry(of: pid)?.parent, family.contains(parent)
            else { return nil }
            return descriptor
        }
        return (escaped, descriptors)
    }

    private func killGroup(of run: ProcessRun, process: SupervisedProcess) {
        do {
            try run.group.kill()
        } catch {
            events.record(.error, process.name, "kill \(run.group): \(error)")
        }
    }

    /// How long a run may take to be reaped after SIGKILL before it is given up.
    static let exitBound = Duration.seconds(2)

    /// Ends a run whose main process was not reaped within ``exitBound`` of SIGKILL (stuck
    /// in the kernel): the stop that waits for it returns, and the state says it is down.
    /// A loop held past the bound sees the timer before the pidfd: an exit that happened
    /// meanwhile is taken as the exit. One that has not is still reaped when it comes.
    private func abandon(_ process: SupervisedProcess) {
        guard let run = process.run else { return }
        if let status = try? run.process.descriptor.exitStatusIfExited() {
            return end(run, of: process, .exited(ChildExit(status)))
        }
        events.record(.error, process.name, "pid \(run.pid) was not reaped within \(Self.exitBound.formatted) of SIGKILL: its run is given up")
        end(run, of: process, .notReaped)
        givenUp.reapWhenItExits(run.process, name: process.name)
    }

    // MARK: Helpers

    /// New ends for a child; out of descriptors (EMFILE), no empty group is left behind.
    private func childEnds(
        _ kind: ChildEnds.Kind, _ operation: @autoclosure () -> String, discarding group: ControlGroup, of process: SupervisedProcess
    ) throws(LaunchError) -> ChildEnds {
        do throws(SystemError) {
            return try ChildEnds(kind, operation())
        } catch {
            discard(group, of: process)
            throw .system(error)
        }
    }

    /// A connection that logs what the child writes to `stream`.
    func outputConnection(
        _ fd: Int32, _ stream: StandardStream, capture: OutputCapture,
        of process: SupervisedProcess
    ) throws(SystemError) -> Connection {
        try Connection(
            loop: loop, fd: fd,
            onData: { connection, bytes in capture.take(bytes, from: stream, on: connection) },
            onClose: { [unowned process] _ in
                capture.recordSkipped()
                process.output.flush(stream)
            }
        )
    }

    static func cgroupKind(_ kind: ProcessKind) -> CgroupKind {
        switch kind {
        case .host: .hosts
        case .app: .apps
        case .extension: .extensions
        }
    }

    /// Children get the daemon's environment without what systemd meant for the daemon.
    private static func inheritedEnvironment() -> [String: String] {
        let daemonOnly: Set<String> = [
            "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID",
            "LISTEN_FDNAMES", "EXTENSIOND_SOCKET", "INVOCATION_ID", "JOURNAL_STREAM",
        ]
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                let key = String(pair[..<equals])
                if !daemonOnly.contains(key) { environment[key] = String(pair[pair.index(after: equals)...]) }
            }
            entry += 1
        }
        return environment
    }
}

/// Why a process could not be launched.
package enum LaunchError: Error, CustomStringConvertible {
    case emptyCommand
    case cgroup(CgroupError)
    case spawn(SpawnError)
    case system(SystemError)
    case isolation(IsolationError)

    package var description: String {
        switch self {
        case .emptyCommand: "the command is empty"
        case .isolation(let error): "\(error)"
        case .cgroup(let error): "cgroup: \(error)"
        case .spawn(let error): "\(error)"
        case .system(let error): "\(error)"
        }
    }
}
