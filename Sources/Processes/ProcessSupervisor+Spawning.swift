import Cgroup
import DaemonSupport
import EventLoop
import ExtensiondPolicy
import LinuxProcess
import Sockets

/// A launch whose spawn runs beside the loop: what the loop made for the child, and what
/// was asked of the process meanwhile (its state is `starting`, without a run or a pid).
final class PendingLaunch {
    let group: ControlGroup
    /// The group's `tasks` files, open for the child: closed once the spawn is back.
    var taskFiles: OpenTaskFiles?
    /// The child's ends are closed, and ours taken over, once the spawn is back: until
    /// then the spawner may still be placing them.
    var stdout: ChildEnds?
    var stderr: ChildEnds?
    var channel: ChildEnds?
    let launchedAt: MonotonicInstant
    /// Stops asked for meanwhile, applied to the run once it exists.
    var stops: [(reason: StopReason, completion: (() -> Void)?)] = []
    /// Told how the spawn went.
    var onSpawned: [(LaunchError?) -> Void] = []
    /// Starts asked for after a stop meanwhile: the process is launched again once that
    /// stop is done, and these hear how. Nil: none.
    var startsAfterTheStops: [(LaunchError?) -> Void]?

    init(
        group: ControlGroup, taskFiles: consuming OpenTaskFiles, stdout: consuming ChildEnds, stderr: consuming ChildEnds,
        channel: consuming ChildEnds?, launchedAt: MonotonicInstant
    ) {
        self.group = group
        self.taskFiles = consume taskFiles
        self.stdout = consume stdout
        self.stderr = consume stderr
        self.channel = consume channel
        self.launchedAt = launchedAt
    }
}

/// A launch not begun while ``ProcessSupervisor/spawnsAhead`` spawns are under way.
struct WaitingLaunch {
    let process: SupervisedProcess
    let extraArguments: [String]
    var outcomes: [(LaunchError?) -> Void]
}

/// The spawn, beside the loop: with `CLONE_VFORK` the spawning thread waits for the child's
/// whole set-up and its `execve` (bench/README.md, "The launch floor, fifth pass"); on the
/// spawner's thread the loop meanwhile makes the next launch's groups.
extension ProcessSupervisor {
    /// Spawns queued on the spawner at most: the loop prepares the next launches while one
    /// spawns, and a burst does not hold every launch's pipes and request at once
    /// (bench/README.md, "The launch floor, fifth pass").
    static let spawnsAhead = 4

    /// Whether a launch of `process` is under way: waiting for its volumes or the spawner,
    /// or spawning.
    package func isLaunching(_ process: SupervisedProcess) -> Bool {
        awaitingVolumes[process.name] != nil || spawning[process.name] != nil || waitingForSpawner.contains { $0.process === process }
    }

    /// The group `process` runs in: its run's, or while its spawn is under way the one the
    /// child joined before its `execve`.
    package func group(of process: SupervisedProcess) -> ControlGroup? {
        process.run?.group ?? spawning[process.name]?.group
    }

    /// Whether a launch of `process` is under way and no stop asked for since waits for it.
    package func isLaunchingToStay(_ process: SupervisedProcess) -> Bool {
        isLaunching(process) && spawning[process.name]?.stops.isEmpty != false
    }

    /// `body` hears how the spawn under way goes; at once (nil) when there is none. After
    /// a stop asked for meanwhile, the process is launched again once that stop is done
    /// (the start came last), and `body` hears how that launch goes.
    func whenSpawned(_ process: SupervisedProcess, _ body: ((LaunchError?) -> Void)?) {
        if let pending = spawning[process.name], !pending.stops.isEmpty {
            pending.startsAfterTheStops = (pending.startsAfterTheStops ?? []) + (body.map { [$0] } ?? [])
            return
        }
        guard let body else { return }
        if let pending = spawning[process.name] { return pending.onSpawned.append(body) }
        guard let index = waitingForSpawner.firstIndex(where: { $0.process === process }) else { return body(nil) }
        waitingForSpawner[index].outcomes.append(body)
    }

    func waitForSpawner(_ process: SupervisedProcess, _ extraArguments: [String], _ outcome: ((LaunchError?) -> Void)?) {
        process.state = .starting
        waitingForSpawner.append(WaitingLaunch(process: process, extraArguments: extraArguments, outcomes: outcome.map { [$0] } ?? []))
    }

    /// A stop asked for while the spawn of `process` is under way: applied to the run once
    /// it exists. A launch waiting for the spawner is dropped (its state is `stopped`).
    /// `false`: neither.
    func deferStop(of process: SupervisedProcess, reason: StopReason, then completion: (() -> Void)?) -> Bool {
        if let pending = spawning[process.name] {
            pending.stops.append((reason, completion))
            return true
        }
        guard let index = waitingForSpawner.firstIndex(where: { $0.process === process }) else { return false }
        let dropped = waitingForSpawner.remove(at: index)
        process.state = .stopped
        for outcome in dropped.outcomes { outcome(nil) }
        completion?()
        return true
    }

    /// Begins the launches waiting for a place on the spawner, in order.
    private func startWaitingLaunches() {
        while spawning.count < Self.spawnsAhead, !waitingForSpawner.isEmpty {
            let next = waitingForSpawner.removeFirst()
            do throws(LaunchError) {
                try start(next.process, extraArguments: next.extraArguments) { error in
                    for outcome in next.outcomes { outcome(error) }
                }
            } catch {
                for outcome in next.outcomes { outcome(error) }
                onDeferredLaunchFailed?(next.process, error)
            }
        }
    }

    /// Spawns `request` on the spawner's thread. That thread is the child's parent, and
    /// the child's parent-death signal follows the thread, not the process: the thread
    /// lives as long as the supervisor. The child shares the daemon's descriptor table
    /// until it has joined its v1 groups (spawn.c): the loop goes on opening and closing
    /// its own descriptors meanwhile, all close-on-exec, and the child closes every
    /// descriptor but its own at exec; what the child uses (the reserved slots, the v1
    /// groups' held directories) the loop does not close while a spawn is under way.
    func spawn(_ request: SpawnRequest, for process: SupervisedProcess) {
        let work: @Sendable () -> Result<SpawnedProcess, SpawnError> = {
            Result { () throws(SpawnError) in try Spawner.spawn(request) }
        }
        guard let spawner else { return spawned(process, work()) }
        spawner.run(work) { [unowned self] result in self.spawned(process, result) }
    }

    /// The spawn of `process` came back: its run is watched, or the launch failed; then
    /// what was asked meanwhile is done.
    private func spawned(_ process: SupervisedProcess, _ result: Result<SpawnedProcess, SpawnError>) {
        guard let pending = spawning.removeValue(forKey: process.name) else { return }
        var failure: LaunchError?
        switch result {
        case .success(let child):
            do throws(LaunchError) {
                try watch(child, of: process, pending)
            } catch {
                failure = error
            }
        case .failure(let error):
            discard(pending.group, of: process)
            failure = .spawn(error)
        }
        // The child's ends, and ours when they were not taken over.
        pending.taskFiles = nil
        pending.stdout = nil
        pending.stderr = nil
        pending.channel = nil
        if let failure { launchFailed(process, failure, stopped: !pending.stops.isEmpty) }
        for body in pending.onSpawned { body(failure) }
        if let failure { onDeferredLaunchFailed?(process, failure) }
        for stop in pending.stops {
            if failure == nil {
                self.stop(process, reason: stop.reason, then: stop.completion)
            } else {
                stop.completion?()
            }
        }
        if let starts = pending.startsAfterTheStops { startAgain(process, telling: starts) }
        startWaitingLaunches()
    }

    /// Launches `process` again once the stops applied to its new run are done.
    private func startAgain(_ process: SupervisedProcess, telling outcomes: [(LaunchError?) -> Void]) {
        let launch = { [unowned self, unowned process] in
            do throws(LaunchError) {
                try start(process) { error in for outcome in outcomes { outcome(error) } }
            } catch {
                for outcome in outcomes { outcome(error) }
            }
        }
        guard let run = process.run else { return launch() }
        run.onEnd.append(launch)
    }

    /// Makes the run of `child` and watches its exit, output, channel and OOM kills.
    private func watch(_ child: SpawnedProcess, of process: SupervisedProcess, _ pending: PendingLaunch) throws(LaunchError) {
        let isExtension = process.kind == .extension
        let run = ProcessRun(process: child, group: pending.group, launchedAt: pending.launchedAt)
        if isExtension { run.usageAtBandEntry = 0 }
        process.run = run
        process.lastError = nil
        process.statistics.launches += 1
        process.state = isExtension ? .starting : .running
        do throws(SystemError) {
            run.exitWatch = try loop.addChildExit(pidfd: child.descriptor.fileDescriptor) { [unowned self, unowned process] exit in
                self.runExited(process, exit)
            }
            let capture =
                process.capture.flatMap { $0.bytesPerSecond == process.outputRate ? $0 : nil }
                ?? OutputCapture(loop: loop, log: process.output, bytesPerSecond: process.outputRate)
            process.capture = capture
            if let stdout = pending.stdout.take(), let stderr = pending.stderr.take() {
                run.output = [
                    try outputConnection(stdout.ours.take(), .stdout, capture: capture, of: process),
                    try outputConnection(stderr.ours.take(), .stderr, capture: capture, of: process),
                ]
            }
            if let channel = pending.channel.take() {
                run.channel = try ExtensionChannel(
                    loop: loop, fd: channel.ours.take(),
                    onMessage: { [unowned self, unowned process] message in self.onExtensionMessage?(process, message) },
                    onViolation: { [unowned self, unowned process] error in
                        self.kill(process, reason: .protocolViolation, message: "protocol violation: \(error)")
                    },
                    onEndOfFile: { [unowned self, unowned process] in self.channelClosed(process) }
                )
            }
        } catch {
            // The child runs but cannot be watched: do not leave it behind.
            retire(run, of: process, mainReaped: false)
            throw .system(error)
        }
        watchOOM(process, run)
        if !isExtension { process.statistics.recordLaunch(MonotonicInstant.current().since(pending.launchedAt)) }
        events.record(
            .launch, process.name, "launched pid \(child.pid) in \(pending.group)",
            figures: [("PID", "\(child.pid)"), ("CGROUP", "\(pending.group)"), ("KIND", process.kind.rawValue)])
        onLaunched?(process)
    }
}
