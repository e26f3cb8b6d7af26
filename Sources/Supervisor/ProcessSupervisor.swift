import Cgroup
import ControlProtocol
import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import Glibc
import LinuxProcess
import WireProtocol

/// Starts, stops and restarts supervised processes, each in its own cgroup, captures
/// their output, notices their exits and kernel OOM kills, and records all of it.
final class ProcessSupervisor {
    private let loop: EventLoop
    let tree: CgroupTree
    private let events: EventLog
    private var random = SystemRandomNumberGenerator()
    /// The daemon's environment minus what belongs to the daemon alone.
    private let baseEnvironment: [String: String]
    /// Called with an extension's new channel once it is spawned; the extension
    /// runtime takes over the protocol from there.
    var onExtensionMessage: ((SupervisedProcess, ExtensionToSupervisor) -> Void)?
    /// Called once a process has been spawned and is watched.
    var onLaunched: ((SupervisedProcess) -> Void)?
    /// Called after a run ended and its state was settled.
    var onRunEnded: ((SupervisedProcess, _ reason: String) -> Void)?
    /// Group containers of an app or extension: `EXTENSIOND_GROUP_CONTAINERS`.
    var groupContainers: (SupervisedProcess) -> [String: String] = { _ in [:] }

    /// `hostSocket` is passed to hosts and apps as `EXTENSIOND_HOST_SOCKET`.
    init(loop: EventLoop, tree: CgroupTree, events: EventLog, hostSocket: String) {
        self.loop = loop
        self.tree = tree
        self.events = events
        var environment = Self.inheritedEnvironment()
        environment[ExtensionEnvironment.hostSocketVariable] = hostSocket
        baseEnvironment = environment
    }

    // MARK: Starting

    /// Launches `process` unless it is alive. A failure to launch is recorded, shown
    /// in status, and (for restarting processes) counts as a crash.
    /// `extraArguments` follow the configured command for this run only (an app opening a URL).
    func start(_ process: SupervisedProcess, extraArguments: [String] = []) throws(LaunchError) {
        guard !process.isAlive else { return }
        process.restartTimer = nil
        do throws(LaunchError) {
            try launch(process, extraArguments: extraArguments)
        } catch {
            process.lastError = error.description
            events.record(.error, process.name, error.description)
            settleAfterExit(process, ranFor: .zero, reason: "launch-failed")
            throw error
        }
    }

    /// Starts `process` after a manual request: clears `fatal` and the restart history.
    func startByHand(_ process: SupervisedProcess) throws(LaunchError) {
        process.restartPolicy.reset()
        if !process.isAlive { process.state = .stopped }
        try start(process)
    }

    private func launch(_ process: SupervisedProcess, extraArguments: [String]) throws(LaunchError) {
        let definition = process.definition
        guard let executable = definition.launch.command.first else { throw .emptyCommand }
        // The previous run's group is reused; whatever is still dying in it goes on dying.
        process.groupRemoval = nil
        let group: ControlGroup
        do throws(CgroupError) {
            group = try tree.group(Self.cgroupKind(definition.kind), id: process.name)
        } catch {
            throw .cgroup(error)
        }
        do throws(CgroupError) {
            try group.setMemoryMax(definition.limits.memoryMax?.bytes)
            try group.setMemoryHigh(definition.limits.memoryHigh?.bytes)
            try group.setPidsMax(definition.limits.pidsMax)
        } catch {
            try? group.remove()
            throw .cgroup(error)
        }
        var outputPipe: [Int32] = [-1, -1]
        // One thread: no fork can happen between pipe() and FD_CLOEXEC.
        guard pipe(&outputPipe) == 0 else { throw .system(SystemError("pipe for \(process.name)")) }
        for fd in outputPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(outputPipe[1]) }
        var socketPair: [Int32] = [-1, -1]
        let isExtension = definition.kind == .extension
        if isExtension {
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &socketPair) == 0 else {
                close(outputPipe[0])
                throw .system(SystemError("socketpair for \(process.name)"))
            }
        }
        defer { if isExtension { close(socketPair[1]) } }

        var environment = baseEnvironment.merging(definition.launch.environment) { _, configured in configured }
        let containers = groupContainers(process)
        if !containers.isEmpty {
            environment[ExtensionEnvironment.groupContainersVariable] = ExtensionEnvironment.encodeGroupContainers(containers)
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
            user: definition.launch.user,
            group: definition.launch.group,
            cgroup: group.spawnPlacement,
            // The kernel's own OOM killer must also take an extension before a host.
            oomScoreAdjustment: isExtension ? 1000 : nil,
            extensionSocket: isExtension ? socketPair[1] : nil,
            standardOutput: outputPipe[1],
            standardError: outputPipe[1]
        )
        let launchedAt = MonotonicInstant.current()
        let spawned: SpawnedProcess
        do {
            spawned = try Spawner.spawn(request)
        } catch {
            close(outputPipe[0])
            if isExtension { close(socketPair[0]) }
            try? group.remove()
            throw .spawn(error)
        }
        let run = ProcessRun(process: spawned, group: group, launchedAt: launchedAt)
        process.run = run
        process.lastError = nil
        process.statistics.launches += 1
        process.state = isExtension ? .starting : .running
        do throws(SystemError) {
            run.exitWatch = try loop.addChildExit(pidfd: spawned.descriptor.fileDescriptor) { [unowned self, unowned process] exit in
                self.runExited(process, exit)
            }
            run.output = try Connection(
                loop: loop, fd: outputPipe[0],
                onData: { [unowned process] _, bytes in process.output.append(bytes) },
                onClose: { [unowned process] _ in process.output.flush() }
            )
            if isExtension {
                run.channel = try ExtensionChannel(
                    loop: loop, fd: socketPair[0],
                    onMessage: { [unowned self, unowned process] message in self.onExtensionMessage?(process, message) },
                    onViolation: { [unowned self, unowned process] error in
                        self.kill(process, reason: "protocol", message: "protocol violation: \(error)")
                    }
                )
            }
        } catch {
            // The child runs but cannot be watched: do not leave it behind.
            retire(run, of: process)
            throw .system(error)
        }
        watchOOM(process, run)
        if !isExtension { process.statistics.lastLaunchLatency = MonotonicInstant.current().since(launchedAt) }
        events.record(.launch, process.name, "launched pid \(spawned.pid) in \(group)")
        onLaunched?(process)
    }

    private func watchOOM(_ process: SupervisedProcess, _ run: ProcessRun) {
        run.oomKillsAtLaunch = (try? run.group.memoryEvents().oomKills) ?? 0
        guard let source = try? run.group.oomEvents(),
              let watch = try? loop.addIO(fd: source.fileDescriptor, events: source.readiness == .priority ? .priority : .readable, handler: { [unowned self, unowned process] _ in
                  _ = try? source.acknowledge()
                  self.oomNoticed(process)
              })
        else { return }
        run.oomWatch = (source, watch)
    }

    private func oomNoticed(_ process: SupervisedProcess) {
        guard let run = process.run else { return }
        let kills = (try? run.group.memoryEvents().oomKills) ?? 0
        guard kills > run.oomKillsAtLaunch else { return }
        run.oomKillsAtLaunch = kills
        process.statistics.kills["oom", default: 0] += 1
        run.stopReason = run.stopReason ?? "oom"
        events.record(.oom, process.name, reason: "oom", "the kernel OOM-killed a process in \(run.group) (memory_max \(process.definition.limits.memoryMax?.description ?? "none"))")
    }

    // MARK: Stopping

    /// Asks `process` to stop: `terminate` to a ready extension, SIGTERM otherwise; the
    /// whole cgroup is killed after the grace period. `then` runs once it is down.
    func stop(_ process: SupervisedProcess, reason: String, then completion: (() -> Void)? = nil) {
        process.restartTimer = nil
        guard let run = process.run else {
            if process.state == .backoff || process.state == .fatal || process.state == .exited { process.state = .stopped }
            completion?()
            return
        }
        if let completion { run.onEnd.append(completion) }
        guard run.stopReason == nil || run.killTimer == nil else { return }
        run.stopReason = run.stopReason ?? reason
        if let channel = run.channel, process.state == .idle || process.state == .running {
            channel.send(.terminate)
        } else {
            try? run.process.descriptor.send(signal: SIGTERM)
        }
        run.killTimer = try? loop.addTimer(after: process.definition.stopTimeout) { [unowned self, unowned process] in
            self.killGroup(process)
        }
    }

    /// Kills the whole cgroup of `process` now, recording `reason`.
    func kill(_ process: SupervisedProcess, reason: String, message: String) {
        guard let run = process.run else { return }
        run.stopReason = reason
        process.statistics.kills[reason, default: 0] += 1
        events.record(.kill, process.name, reason: reason, message)
        killGroup(process)
    }

    private func killGroup(_ process: SupervisedProcess) {
        guard let run = process.run else { return }
        run.killTimer = nil
        do {
            try run.group.kill()
        } catch {
            events.record(.error, process.name, "kill \(run.group): \(error)")
        }
    }

    // MARK: Exits

    private func runExited(_ process: SupervisedProcess, _ exit: ChildExit) {
        guard let run = process.run else { return }
        let ranFor = MonotonicInstant.current().since(run.launchedAt)
        oomNoticed(process)
        if let peak = try? run.group.memoryPeak() { process.statistics.peakMemoryBytes = max(process.statistics.peakMemoryBytes, peak) }
        retire(run, of: process)
        let reason = run.stopReason ?? "exited"
        events.record(.exit, process.name, reason: reason, "pid \(run.pid) \(exit.description) after \(ranFor.formatted)")
        if run.stopReason == nil && !(exit.exited && exit.status == 0) {
            process.lastError = exit.description
        }
        if run.stopReason != nil && run.stopReason != "oom" {
            process.state = .stopped
        } else {
            settleAfterExit(process, ranFor: ranFor, reason: reason)
        }
        for completion in run.onEnd { completion() }
        onRunEnded?(process, reason)
    }

    /// Ends `run`: whatever is left in its group is killed, its output taken in, its
    /// watches dropped and its group removed once empty.
    private func retire(_ run: ProcessRun, of process: SupervisedProcess) {
        _ = try? run.group.kill()
        // Killed processes usually go at once; on a busy machine they may need a while
        // longer, and the group is removed when they have.
        let empty = (try? run.group.waitUntilEmpty(timeout: .milliseconds(100))) ?? false
        run.cancelWatches()
        process.run = nil
        if empty {
            removeGroup(run.group, of: process)
        } else {
            removeWhenEmpty(run.group, of: process, attemptsLeft: Self.removalAttempts)
        }
    }

    /// Tries to remove a killed group every ``removalInterval`` until it succeeds or
    /// the attempts run out (then records the error; the next start's stale-group
    /// cleanup takes it).
    private func removeWhenEmpty(_ group: ControlGroup, of process: SupervisedProcess, attemptsLeft: Int) {
        guard attemptsLeft > 0, (try? group.isEmpty()) != true else {
            process.groupRemoval = nil
            return removeGroup(group, of: process)
        }
        process.groupRemoval = try? loop.addTimer(after: Self.removalInterval) { [unowned self, unowned process] in
            _ = try? group.kill()
            self.removeWhenEmpty(group, of: process, attemptsLeft: attemptsLeft - 1)
        }
    }

    private func removeGroup(_ group: ControlGroup, of process: SupervisedProcess) {
        do {
            try group.remove()
        } catch {
            events.record(.error, process.name, "remove \(group): \(error)")
        }
    }

    /// 10 s in all for killed processes to leave their group.
    private static let removalAttempts = 200
    private static let removalInterval = Duration.milliseconds(50)

    /// After an exit the daemon did not ask for: restart with backoff, give up, or rest.
    private func settleAfterExit(_ process: SupervisedProcess, ranFor: Duration, reason: String) {
        guard process.definition.restart != nil else {
            process.state = .exited
            return
        }
        switch process.restartPolicy.processExited(afterRunning: ranFor, using: &random) {
        case .restart(let delay):
            process.state = .backoff
            events.record(.restart, process.name, reason: reason, "restarting in \(delay.formatted)")
            process.restartTimer = try? loop.addTimer(after: delay) { [unowned self, unowned process] in
                process.restartTimer = nil
                try? self.start(process)
            }
        case .fatal:
            process.state = .fatal
            events.record(.fatal, process.name, reason: reason, "failed to start \(process.restartPolicy.maxRetries + 1) times in a row; start it by hand")
        }
    }

    // MARK: Helpers

    static func cgroupKind(_ kind: ProcessKind) -> CgroupKind {
        switch kind {
        case .host: .hosts
        case .app: .apps
        case .extension: .extensions
        }
    }

    /// Children get the daemon's environment without what systemd meant for the daemon.
    private static func inheritedEnvironment() -> [String: String] {
        let daemonOnly: Set<String> = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID",
                                       "LISTEN_FDNAMES", "EXTENSIOND_SOCKET", "INVOCATION_ID", "JOURNAL_STREAM"]
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
enum LaunchError: Error, CustomStringConvertible {
    case emptyCommand
    case cgroup(CgroupError)
    case spawn(SpawnError)
    case system(SystemError)

    var description: String {
        switch self {
        case .emptyCommand: "the command is empty"
        case .cgroup(let error): "cgroup: \(error)"
        case .spawn(let error): "\(error)"
        case .system(let error): "\(error)"
        }
    }
}

extension Duration {
    /// `850ms`, `12.3s`, `5m0s`.
    var formatted: String {
        let milliseconds = wholeMicroseconds / 1000
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        if milliseconds < 60_000 { return "\(milliseconds / 1000).\(milliseconds % 1000 / 100)s" }
        return "\(milliseconds / 60_000)m\(milliseconds % 60_000 / 1000)s"
    }
}
