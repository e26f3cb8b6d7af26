/// The daemon's wiring: configuration, sockets, process table, signals and systemd.
///
/// This module owns the decisions of a running extensiond and the order of things at
/// start-up and shut-down. It reaches Linux only through the adapter modules
/// (EventLoop, Cgroup, LinuxProcess) and delegates every policy to ExtensiondPolicy.
import Cgroup
import ControlProtocol
import EventLoop
import ExtensiondConfig
import Glibc
import Logging

/// A running extensiond.
public final class Daemon {
    let loop: EventLoop
    let configPath: String
    var configuration: Configuration
    let logger: Logger
    let notifier = SystemdNotifier()
    let events: EventLog
    let registry: ProcessRegistry
    private(set) var supervisor: ProcessSupervisor!
    private(set) var extensions: ExtensionCoordinator!
    private(set) var pressure: MemoryPressure!
    private var lock: RuntimeDirectoryLock?
    private var control: ControlServer?
    private var signalSources: [EventSource] = []
    private var stopping = false
    /// Whether the cgroup root is extensiond's alone, so that limits on it touch nothing else.
    private var ownsCgroupRoot = false

    /// A daemon for an already validated configuration loaded from `configPath`.
    public init(configuration: Configuration, configPath: String, logger: Logger) throws(SupervisorError) {
        EventLoop.blockChildSignal()
        Self.raiseFileLimit()
        do {
            loop = try EventLoop()
        } catch {
            throw .system(error)
        }
        self.configuration = configuration
        self.configPath = configPath
        self.logger = logger
        events = EventLog(logger: logger)
        registry = ProcessRegistry(configuration, logDirectory: configuration.supervisor.stateDirectory + "/logs")
    }

    /// Each running extension holds a few fds (pidfd, output pipe, socket, notification):
    /// take the hard limit rather than the 1024 soft default.
    private static func raiseFileLimit() {
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    /// Serves until SIGTERM or SIGINT; returns the process exit code.
    public func run() throws(SupervisorError) -> Int32 {
        let settings = configuration.supervisor
        do {
            try FileSystem.createDirectories(settings.runtimeDirectory)
            try FileSystem.createDirectories(settings.stateDirectory)
            try FileSystem.createDirectories(settings.stateDirectory + "/logs", mode: 0o750)
        } catch {
            throw .system(error)
        }
        lock = try RuntimeDirectoryLock(directory: settings.runtimeDirectory)
        let tree = try prepareCgroups()
        supervisor = ProcessSupervisor(loop: loop, tree: tree, events: events, hostSocket: settings.runtimeDirectory + "/host.sock")
        extensions = ExtensionCoordinator(loop: loop, supervisor: supervisor, events: events)
        pressure = MemoryPressure(loop: loop, tree: tree, ownsRoot: ownsCgroupRoot, registry: registry, events: events, lastUsed: \.lastUsed)
        supervisor.onLaunched = { [unowned self] process in
            self.extensions.launched(process)
            self.pressure.launched(process)
        }
        supervisor.onExtensionMessage = { [unowned self] process, message in self.extensions.received(message, from: process) }
        supervisor.onRunEnded = { [unowned self] process, reason in
            self.extensions.runEnded(process, reason: reason)
            self.pressure.runEnded(process)
            self.notifier.status(self.summary)
        }
        do {
            control = try ControlServer(loop: loop, path: settings.runtimeDirectory + "/control.sock") { [unowned self] request, session in
                self.handle(request, session)
            }
            signalSources = [
                try loop.addSignal(SIGTERM) { [unowned self] _ in self.shutdown() },
                try loop.addSignal(SIGINT) { [unowned self] _ in self.shutdown() },
                try loop.addSignal(SIGHUP) { [unowned self] _ in _ = self.reload() },
            ]
        } catch {
            throw .system(error)
        }
        try pressure.apply(configuration)
        let watchdog = loop.enableWatchdog()
        logger.info("extensiond \(extensiondVersion) serving \(settings.runtimeDirectory)/control.sock", metadata: [
            "config": "\(configPath)", "cgroup": "\(tree.root)", "backend": "\(tree.version)", "watchdog": "\(watchdog)",
        ])
        startAutostarted()
        notifier.ready(status: summary)
        do {
            return try loop.run()
        } catch {
            throw .system(error)
        }
    }

    /// Finds the tree, makes its subtrees, sets the backstop and clears what a crashed
    /// predecessor left behind.
    private func prepareCgroups() throws(SupervisorError) -> CgroupTree {
        do throws(CgroupError) {
            let tree = try CgroupTree.detect(configuredRoot: configuration.supervisor.cgroup)
            try tree.prepare()
            let shared = try tree.root.processes().contains { $0 != getpid() }
            ownsCgroupRoot = configuration.supervisor.cgroup != nil || !shared
            if ownsCgroupRoot {
                try tree.setMemoryBackstop(configuration.supervisor.memoryBudget?.bytes)
            } else if configuration.supervisor.memoryBudget != nil {
                logger.warning("no hard limit set at memory_budget: \(tree.root) is shared with other processes (set supervisor.cgroup to give extensiond its own)")
            }
            for stale in try tree.removeStaleGroups() {
                let outcome = stale.failure.map { "could not be removed: \($0)" } ?? "removed"
                events.record(.cleanup, stale.id, "stale \(stale.kind.rawValue) cgroup from a previous run: killed \(stale.killedProcesses.count) processes, \(outcome)")
            }
            return tree
        } catch {
            throw .cgroup(error)
        }
    }

    private func startAutostarted() {
        for process in registry.ordered where process.definition.autostart && !process.isAlive {
            try? supervisor.start(process)
        }
    }

    /// One line for `systemctl status`.
    var summary: String {
        let running = registry.ordered.filter(\.isAlive).count
        return "\(configuration.hosts.count) hosts, \(configuration.apps.count) apps, "
            + "\(configuration.extensions.count) extensions; \(running) running"
    }

    /// Stops every process gracefully (bounded by their grace periods), then exits.
    private func shutdown() {
        guard !stopping else { return }
        stopping = true
        logger.info("stopping")
        notifier.stopping()
        control?.close()
        control = nil
        var remaining = registry.ordered.filter(\.isAlive).count
        let finish: () -> Void = { [unowned self] in
            self.supervisor.tree.removeEmptySubtrees()
            if self.ownsCgroupRoot { try? self.supervisor.tree.setMemoryBackstop(nil) }
            self.signalSources.removeAll()
            self.loop.exit(code: 0)
        }
        guard remaining > 0 else { return finish() }
        for process in registry.ordered where process.isAlive {
            supervisor.stop(process, reason: "shutdown") {
                remaining -= 1
                if remaining == 0 { finish() }
            }
        }
    }

    /// Rereads the config; on any error keeps the old one and returns the error.
    func reload() -> ConfigurationErrors? {
        notifier.reloading()
        defer { notifier.reloaded(status: summary) }
        let next: Configuration
        do {
            next = try ConfigurationLoader.load(path: configPath)
        } catch {
            logger.error("reload failed, keeping the running configuration: \(error)")
            return error
        }
        if next.supervisor.runtimeDirectory != configuration.supervisor.runtimeDirectory
            || next.supervisor.stateDirectory != configuration.supervisor.stateDirectory
            || next.supervisor.cgroup != configuration.supervisor.cgroup {
            logger.warning("runtime_dir, state_dir and cgroup changes take effect at the next start")
        }
        configuration = next
        for removed in registry.apply(next) {
            supervisor.stop(removed, reason: "removed")
        }
        if ownsCgroupRoot { try? supervisor.tree.setMemoryBackstop(next.supervisor.memoryBudget?.bytes) }
        do {
            try pressure.apply(next)
        } catch {
            events.record(.error, nil, "pressure detection after reload: \(error)")
        }
        startAutostarted()
        events.record(.reload, nil, "reloaded \(configPath): \(summary)")
        return nil
    }
}
