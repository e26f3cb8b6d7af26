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
import WireProtocol

/// A running extensiond: ``init(configuration:configPath:logger:echoOutput:)`` takes the
/// runtime directory, prepares the cgroup tree and builds the components; ``run()`` opens
/// the sockets and serves.
public final class Daemon {
    let loop: EventLoop
    let configPath: String
    var configuration: Configuration
    let logger: Logger
    let notifier = SystemdNotifier()
    let events: EventLog
    let registry: ProcessRegistry
    let cgroups: CgroupRoot
    let supervisor: ProcessSupervisor
    let extensions: ExtensionCoordinator
    let pressure: MemoryPressure
    private let lock: RuntimeDirectoryLock
    private var control: ControlServer?
    private(set) var hosts: HostServer?
    private var metrics: MetricsServer?
    private var signalSources: [EventSource] = []
    private var stopping = false
    /// Copy every process's output to stderr, prefixed with its name (a developer's terminal).
    private let echoOutput: Bool

    /// A daemon for an already validated configuration loaded from `configPath`.
    /// `echoOutput` copies the supervised processes' output to stderr as well.
    public init(configuration: Configuration, configPath: String, logger: Logger, echoOutput: Bool = false) throws(SupervisorError) {
        EventLoop.blockChildSignal()
        Self.raiseFileLimit()
        let settings = configuration.supervisor
        let store = ExtensionStore(stateDirectory: settings.stateDirectory)
        do {
            loop = try EventLoop()
            try FileSystem.createDirectories(settings.runtimeDirectory)
            try FileSystem.createDirectories(settings.stateDirectory)
            try FileSystem.createDirectories(settings.stateDirectory + "/logs", mode: 0o750)
            try store.createDirectories()
        } catch {
            throw .system(error)
        }
        lock = try RuntimeDirectoryLock(directory: settings.runtimeDirectory)
        self.configuration = configuration
        self.configPath = configPath
        self.logger = logger
        self.echoOutput = echoOutput
        events = EventLog(logger: logger)
        registry = ProcessRegistry(configuration, logDirectory: settings.stateDirectory + "/logs")
        do {
            cgroups = try CgroupRoot(settings, events: events, logger: logger)
        } catch {
            throw .cgroup(error)
        }
        supervisor = ProcessSupervisor(loop: loop, tree: cgroups.tree, events: events, hostSocket: settings.runtimeDirectory + "/host.sock")
        extensions = ExtensionCoordinator(loop: loop, supervisor: supervisor, registry: registry, events: events, store: store,
                                          groups: GroupStore(stateDirectory: settings.stateDirectory))
        pressure = MemoryPressure(loop: loop, tree: cgroups.tree, ownsRoot: cgroups.isOwned, registry: registry, events: events,
                                  lastUsed: { [extensions] process in extensions.records[process.name]?.lastUsed })
        connectComponents()
    }

    /// Who tells whom: launches, exits and messages flow from the supervisor to the
    /// extension coordinator, the pressure response and the hosts.
    private func connectComponents() {
        extensions.configure(configuration.extensions, apps: configuration.apps)
        extensions.onOpenURL = { [unowned self] url, source in (try? self.open(url, from: source)) != nil }
        extensions.onPush = { [unowned self] _, snapshot in self.hosts?.push(snapshot) }
        extensions.onTerminated = { [unowned self] name, reason in
            self.hosts?.broadcast(.extensionTerminated(.init(extensionID: name, reason: TerminationReason(rawValue: reason))))
        }
        supervisor.groupContainers = { [unowned self] process in self.groupContainers(of: process) }
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

    /// Opens the sockets, arms pressure detection, starts what autostarts, tells systemd,
    /// and serves until SIGTERM or SIGINT; returns the process exit code.
    public func run() throws(SupervisorError) -> Int32 {
        let settings = configuration.supervisor
        do {
            control = try ControlServer(loop: loop, path: settings.runtimeDirectory + "/control.sock") { [unowned self] request, session in
                self.handle(request, session)
            }
            hosts = try HostServer(loop: loop, path: settings.runtimeDirectory + "/host.sock", extensions: extensions)
            if let address = settings.metricsListen {
                metrics = try MetricsServer(loop: loop, address: address) { [unowned self] in
                    MetricsText.render(self.statsReport(for: self.registry.ordered), self.pressure.report())
                }
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
            "config": "\(configPath)", "cgroup": "\(cgroups.tree.root)", "backend": "\(cgroups.tree.version)", "watchdog": "\(watchdog)",
        ])
        echoOutputOfNewProcesses()
        startAutostarted()
        notifier.ready(status: summary)
        do {
            return try loop.run()
        } catch {
            throw .system(error)
        }
    }

    /// The group containers a process may use: its app's (an app's own for an app).
    private func groupContainers(of process: SupervisedProcess) -> [String: String] {
        let appID = process.definition.extensionSpec?.app ?? (process.kind == .app ? process.name : nil)
        guard let app = configuration.apps.first(where: { $0.id == appID }) else { return [:] }
        var containers: [String: String] = [:]
        for group in app.groups {
            do {
                containers[group] = try extensions.groups.container(group)
            } catch {
                events.record(.error, process.name, "group container \(group): \(error)")
            }
        }
        return containers
    }

    /// With `echoOutput`, follows each process's output log (once per process).
    private func echoOutputOfNewProcesses() {
        guard echoOutput else { return }
        for process in registry.ordered {
            let prefix = process.name + " | "
            process.output.follow(self) { line in
                let text = prefix + line
                _ = text.utf8.withContiguousStorageIfAvailable { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            }
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
        hosts?.close()
        hosts = nil
        metrics?.close()
        metrics = nil
        var remaining = registry.ordered.filter(\.isAlive).count
        let finish: () -> Void = { [unowned self] in
            self.extensions.saveRecords()
            self.cgroups.tree.removeEmptySubtrees()
            try? self.cgroups.setBackstop(for: nil)
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
            || next.supervisor.cgroup != configuration.supervisor.cgroup
            || next.supervisor.metricsListen != configuration.supervisor.metricsListen {
            logger.warning("runtime_dir, state_dir, cgroup and metrics_listen changes take effect at the next start")
        }
        configuration = next
        for removed in registry.apply(next) {
            supervisor.stop(removed, reason: "removed")
        }
        extensions.configure(next.extensions, apps: next.apps)
        echoOutputOfNewProcesses()
        try? cgroups.setBackstop(for: next.supervisor.memoryBudget)
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
