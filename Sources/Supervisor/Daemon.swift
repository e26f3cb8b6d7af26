/// The daemon's wiring: configuration, the runtime directory, signals and systemd.
///
/// This module is the composition root: it builds the rooms (Processes,
/// ExtensionCoordination, Pressure, Hosts, Control, Metrics), connects their callbacks,
/// and owns the order of things at start-up, reload and shut-down, and the routing of
/// URLs to apps. It must not hold a room's logic: a command, a policy or a syscall wrapper
/// belongs in its room or adapter.
import Cgroup
import Control
import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensionCoordination
import ExtensiondConfig
import Glibc
import Hosts
import Logging
import Metrics
import Output
import Pressure
import ProcessIsolation
import Processes
import PrometheusText
import Systemd
import WireProtocol

/// A running extensiond: ``init(configuration:configPath:logger:echoOutput:)`` takes the
/// runtime directory, prepares the cgroup tree and builds the components; ``run()`` opens
/// the sockets and serves.
public final class Daemon: ControlledDaemon {
    let loop: EventLoop
    let configPath: String
    package var configuration: Configuration
    let logger: Logger
    let notifier = SystemdNotifier()
    let events: EventLog
    let registry: ProcessRegistry
    let cgroups: CgroupRoot
    let supervisor: ProcessSupervisor
    let extensions: ExtensionCoordinator
    let removedApps: RemovedApps
    /// Writes the daemon's own state files beside the loop.
    let stateFiles: DurableFiles
    let pressure: MemoryPressure
    /// The daemon's own last log lines (`maintail`).
    let logRing: DaemonLogRing
    private let lock: RuntimeDirectoryLock
    private var control: ControlServer?
    private(set) var hosts: HostServer?
    private(set) var reloads = ReloadStatistics()
    private var metrics: MetricsServer?
    private var dropIns: DropInWatcher?
    private var signalSources: [EventSource] = []
    /// Pings systemd's watchdog while the loop runs (`WatchdogSec=`).
    private var watchdog: Watchdog?
    private var stopping = false
    /// Copy every process's output to stderr, prefixed with its name (a developer's terminal).
    private let echoOutput: Bool
    /// Running as a systemd service: output goes to the journal by default, events are structured journal entries.
    private let systemdService: Bool
    /// Where output lines go for `output = "journal"` or `"both"`.
    private let journal: JournalWriting
    /// After a burst the daemon's own usage has settled: the v2 throttle follows it.
    private lazy var burstRelease = BurstRelease(loop: loop, isPutOff: { [unowned self] in self.pressure.isNearLow }) { [unowned self] in
        self.giveBackBurstMemory()
        self.pressure.followDaemonUsage()
    }

    /// A daemon for an already validated configuration loaded from `configPath`. `logRing` is where `logger`'s handler keeps
    /// the last lines; `echoOutput` copies the supervised processes' output to stderr as well; `systemdService` sends output
    /// and events to `journal` (the system's by default).
    public init(
        configuration: Configuration, configPath: String, logger: Logger, logRing: DaemonLogRing = DaemonLogRing(),
        echoOutput: Bool = false, systemdService: Bool = false, journal: JournalWriting = SystemdJournal()
    ) throws(SupervisorError) {
        Self.raiseFileLimit()
        Self.reserveDescriptorTable(for: configuration)
        do {
            loop = try EventLoop()
        } catch {
            throw .system(error)
        }
        // Its thread starts before reset-on-fork is set, and so keeps the nice the daemon
        // was started with (the unit's Nice=-10, which the daemon could not take itself).
        let releases = try? BlockingWorker(loop: loop, keepsLoopPriority: true)
        Self.raiseSchedulingPriority(logger: logger)
        let settings = configuration.supervisor
        let diskWork: BlockingWorker
        let stateFiles: DurableFiles
        let store: ExtensionStore
        do {
            diskWork = try BlockingWorker(loop: loop)
            // Its own thread: the daemon's files never wait behind the tenants' defaults.
            stateFiles = DurableFiles(work: try BlockingWorker(loop: loop))
            store = ExtensionStore(stateDirectory: settings.stateDirectory, files: stateFiles)
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
        self.logRing = logRing
        self.echoOutput = echoOutput
        self.systemdService = systemdService
        self.journal = journal
        events = EventLog(logger: logger)
        if systemdService { events.journal = EventJournal(journal: journal) }
        Self.removeTemporaryFiles(of: settings.stateDirectory, events: events)
        registry = ProcessRegistry(configuration, logDirectory: settings.stateDirectory + "/logs")
        do {
            cgroups = try CgroupRoot(settings, events: events, logger: logger)
        } catch {
            throw .cgroup(error)
        }
        let groups = GroupStore(stateDirectory: settings.stateDirectory, events: events, clock: loop, work: diskWork)
        let isolation = Isolation(
            configuration: configuration, groups: groups, runsAsRoot: geteuid() == 0, events: events,
            volumeWork: try? BlockingWorker(loop: loop), files: stateFiles, clock: loop)
        removedApps = RemovedApps(stateDirectory: settings.stateDirectory, isolation: isolation, files: stateFiles, clock: loop, events: events)
        self.stateFiles = stateFiles
        supervisor = ProcessSupervisor(
            loop: loop, tree: cgroups.tree, events: events, isolation: isolation,
            hostSocket: settings.runtimeDirectory + "/host.sock", releases: releases)
        let processes = SupervisedExtensions(supervisor: supervisor, registry: registry)
        extensions = ExtensionCoordinator(clock: loop, processes: processes, events: events, store: store, groups: isolation.groups)
        pressure = MemoryPressure(
            loop: loop, tree: cgroups.tree, rootThrottle: cgroups.throttle, registry: registry, supervisor: supervisor, events: events,
            lastUsed: { [extensions] process in extensions.records[process.name]?.lastUsed })
        processes.admission = pressure.admission
        processes.onLaunchFailed = { [unowned extensions] id, reason in extensions.launchFailed(id, because: reason) }
        settleRemovedApps()
        // Nothing is served yet: the start's own writes are simply waited for.
        stateFiles.finish()
        connectComponents()
    }

    /// The answers to `supervisorctl`.
    private lazy var commands = ControlCommands(
        loop: loop, events: events, registry: registry, cgroups: cgroups, supervisor: supervisor,
        extensions: extensions, pressure: pressure, logRing: logRing, daemon: self)

    /// Who tells whom: launches, exits and messages flow from the supervisor to the extension coordinator, the pressure response and the hosts.
    private func connectComponents() {
        extensions.configure(configuration.extensions, apps: configuration.apps, types: configuration.types)
        extensions.onOpenURL = { [unowned self] url, source in (try? self.open(url, from: source)) != nil }
        pressure.admission.widgets = { [unowned self] in self.extensions.records.values.filter { $0.spec.point == .widget }.map(\.id) }
        pressure.admission.onHold = { [unowned self] id, held in self.extensions.setMemoryHold(held, id) }
        supervisor.onLaunched = { [unowned self] process in
            self.extensions.launched(process.name)
            self.pressure.launched(process)
        }
        supervisor.onExtensionMessage = { [unowned self] process, message in
            self.extensions.received(message, from: process.name)
            guard case .ready = message else { return }
            self.burstRelease.worked()
            self.pressure.followDaemonUsage()  // A launch moves the daemon's own usage.
        }
        supervisor.onDeferredLaunchFailed = { [unowned self] process, error in
            if process.kind == .extension { self.extensions.launchFailed(process.name, because: "launch failed: \(error)") }
            self.notifier.status(self.summary)
        }
        supervisor.onRunEnded = { [unowned self] process, reason in
            self.extensions.runEnded(process.name, reason: reason)
            if process.kind == .app { self.hosts?.appStopped(process.name) }
            self.pressure.runEnded(process)
            self.notifier.status(self.summary)
        }
    }

    /// What a daemon killed while writing left behind: never read, and never written
    /// through (see ``FileSystem/writeAtomically(_:to:mode:)``). The lock is held: no
    /// other daemon is writing there.
    private static func removeTemporaryFiles(of stateDirectory: String, events: EventLog) {
        for directory in [stateDirectory, stateDirectory + "/extensions", stateDirectory + "/defaults"] {
            for name in FileSystem.removeTemporaryFiles(in: directory) {
                events.record(.cleanup, nil, "removed \(directory)/\(name), left by a daemon killed while writing it")
            }
        }
    }

    /// Opens the sockets, arms pressure detection, starts what autostarts, tells systemd,
    /// and serves until SIGTERM or SIGINT; returns the process exit code.
    public func run() throws(SupervisorError) -> Int32 {
        let settings = configuration.supervisor
        let controlPath = settings.runtimeDirectory + "/control.sock", hostPath = settings.runtimeDirectory + "/host.sock"
        var activated = ActivatedSockets()
        do {
            control = try ControlServer(
                loop: loop, path: controlPath, inherited: activated.take(path: controlPath), access: ControlAccess(settings)
            ) { [unowned self, commands] request, session in
                self.burstRelease.worked()
                commands.handle(request, session)
            }
            control?.onRefused = { [unowned self] _, refusal in self.events.record(.error, nil, "control.sock: \(refusal)") }
            control?.isSupervised = { [unowned self] pid in self.supervisedProcess(pid, among: ProcessKind.allCases) != nil }
            hosts = try HostServer(
                loop: loop, path: hostPath, inherited: activated.take(path: hostPath), extensions: extensions, events: events,
                openInApp: { [unowned self] url, app, source throws(OpenURLError) in
                    try self.open(url, from: source, onlyIn: app)
                }
            ) { [unowned self] pid in self.hostPeer(pid) }
            hosts?.dataRoot = settings.stateDirectory + "/data"
            hosts?.followCoordinator()
            applyHostRules()
            watchDropIns()
            if let address = settings.metricsListen {
                let figures = DaemonMetrics(
                    loop: loop, registry: registry, cgroups: cgroups, extensions: extensions, pressure: pressure, events: events
                ) { [unowned self] in
                    OperationFigures(
                        reloads: self.reloads, hostsConnected: self.hosts?.connectedCount ?? 0, hostsAccepted: self.hosts?.accepted ?? 0,
                        hostsDropped: self.hosts?.dropped ?? ["behind": 0, "limit": 0, "refused": 0])
                }
                metrics = try MetricsServer(loop: loop, address: address) {
                    ExpositionText.render(figures.metricFamilies())
                }
            }
            signalSources = [
                try loop.addSignal(SIGTERM) { [unowned self] _ in self.shutdown() },
                try loop.addSignal(SIGINT) { [unowned self] _ in self.shutdown() },
                try loop.addSignal(SIGHUP) { [unowned self] _ in _ = try? self.reload() },
            ]
        } catch {
            releaseCgroups()
            throw .system(error)
        }
        do {
            try pressure.apply(configuration)
        } catch {
            releaseCgroups()
            throw error
        }
        for unclaimed in activated.closeUnclaimed() {
            events.record(.error, nil, "socket activation: \(unclaimed) is neither \(controlPath) nor \(hostPath) (runtime_dir); closed it")
        }
        watchdog = Watchdog(loop: loop)
        defer { watchdog = nil }
        let metadata: Logger.Metadata = [
            "config": "\(configPath)", "cgroup": "\(cgroups.tree.root)", "backend": "\(cgroups.tree.version)", "watchdog": "\(watchdog != nil)",
        ]
        logger.info("extensiond \(extensiondVersion) serving \(settings.runtimeDirectory)/control.sock", metadata: metadata)
        if geteuid() != 0 || supervisor.isolation.landlockABI == 0 {
            logger.warning("isolation: \(supervisor.isolation.summary)")
        }
        routeOutput()
        echoOutputOfNewProcesses()
        startAutostarted()
        prepareLaunchesAhead()
        becomeReady()
        do {
            return try loop.run()
        } catch {
            throw .system(error)
        }
    }

    /// Points each process's output at the files, the journal or both (`output`).
    private func routeOutput() {
        for process in registry.ordered {
            let destination = process.definition.launch.output ?? .defaultFor(systemdService: systemdService)
            process.output.writesFiles = destination.writesFiles
            process.output.journal = destination.sendsToJournal ? OutputJournal(journal: journal, name: process.name, kind: process.kind) : nil
            process.output.onDrop = { [unowned self, name = process.name] message in self.events.record(.error, name, reason: "output", message) }
        }
    }

    /// The supervised process whose cgroup holds `pid`; anyone else is an external host.
    private func hostPeer(_ pid: pid_t) -> HostPeer {
        guard let process = supervisedProcess(pid, among: [.host, .app, .extension]) else { return .external(pid) }
        switch process.kind {
        case .app: return .app(process.name)
        case .extension: return .extensionProcess(process.name)
        case .host: return .host(process.name)
        }
    }

    /// The supervised process of one of `kinds` whose cgroup holds `pid`: a child that
    /// connects before its spawn is back is known by the group it was placed in.
    private func supervisedProcess(_ pid: pid_t, among kinds: [ProcessKind]) -> SupervisedProcess? {
        registry.ordered.first { process in
            kinds.contains(process.kind) && (try? supervisor.group(of: process)?.processes().contains(pid)) == true
        }
    }

    /// Drop-ins that change are applied as `update` applies them; a broken one keeps the config.
    private func watchDropIns() {
        let directories = ConfigurationLoader.dropInDirectories(for: configPath, configuration.supervisor)
        guard dropIns?.directories != directories else { return }
        do {
            dropIns = try DropInWatcher(loop: loop, directories: directories) { [unowned self] in
                do { try self.reload(restartingChanged: true) } catch {
                    self.events.record(.error, nil, reason: "drop-in", "a drop-in changed; not applied: \(error)")
                }
            }
        } catch {
            events.record(.error, nil, "drop-ins are applied by reload only: \(error)")
        }
    }

    private func applyHostRules() {
        hosts?.configure(configuration)
    }

    /// With `echoOutput`, follows each process's output log (once per process).
    private func echoOutputOfNewProcesses() {
        guard echoOutput else { return }
        for process in registry.ordered {
            let prefix = process.name + " | "
            process.output.follow(self) { line in
                let text = prefix + line.text + "\n"
                _ = text.utf8.withContiguousStorageIfAvailable { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            }
        }
    }

    private func startAutostarted() {
        for process in registry.ordered where process.definition.autostart && !process.isAlive {
            try? supervisor.start(process)
        }
    }

    /// Makes the `disk_max` volumes (beside the loop), data directories and sandbox rules of
    /// every app and extension, so that a first launch finds them ready.
    private func prepareLaunchesAhead() {
        for process in registry.ordered where process.kind != .host {
            supervisor.prepareAhead(process)
        }
    }

    /// One line for `systemctl status`; a process being launched counts as running (its
    /// spawn comes back after `READY=1`; one that fails sends the line again).
    package var summary: String {
        let running = registry.ordered.filter { $0.isAlive || supervisor.isLaunching($0) }.count
        return "\(configuration.hosts.count) hosts, \(configuration.apps.count) apps, "
            + "\(configuration.extensions.count) extensions; \(running) running"
    }

    /// Stops every process gracefully (bounded by their grace periods), then exits.
    private func shutdown() {
        guard !stopping else { return }
        stopping = true
        logger.info("stopping")
        notifier.stopping()
        control?.stopAccepting()
        hosts?.close()
        hosts = nil
        dropIns = nil
        metrics?.close()
        metrics = nil
        let alive = (registry.ordered + registry.retiring).filter { $0.isAlive || supervisor.isLaunching($0) }
        var remaining = alive.count
        let finish: () -> Void = { [unowned self] in
            self.extensions.saveRecords()
            self.extensions.groups.saveEverything()
            self.stateFiles.finish()
            // Groups still emptying are removed first (each within its bound), then the
            // volumes their processes wrote to are unmounted.
            for process in self.registry.ordered + self.registry.retiring { self.supervisor.removeKeptGroup(of: process) }
            self.supervisor.removals.whenAllDone { [unowned self] in
                self.supervisor.isolation.volumes.unmountAll()
                self.releaseCgroups()
                self.signalSources.removeAll()
                self.closeControl { [unowned self] in self.loop.exit(code: 0) }
            }
        }
        guard remaining > 0 else { return finish() }
        for process in alive {
            supervisor.stop(process, reason: .shutdown) {
                remaining -= 1
                if remaining == 0 { finish() }
            }
        }
    }

    /// Closes control.sock's sessions once the clients accepted before the stop have been
    /// answered (``ControlServer/closeOnceRequestsAreIn(then:)``).
    private func closeControl(then done: @escaping () -> Void) {
        guard let control else { return done() }
        control.closeOnceRequestsAreIn(then: done)
    }

    /// Lifts the backstop and gives the cgroup tree up (``CgroupTree/release()``): at a
    /// clean stop, or when the start fails before anything was launched.
    private func releaseCgroups() {
        try? cgroups.setBackstop(for: nil)
        cgroups.tree.release()
    }

    /// Reads the config file without applying it.
    package func readConfiguration() throws(ConfigurationErrors) -> Configuration {
        try ConfigurationLoader.load(path: configPath)
    }

    /// Rereads the config and applies it: removed processes are stopped, new autostart
    /// ones started, changed ones take their new definition at their next start; with
    /// `restartingChanged` (`update`) changed ones that run are restarted now (extensions
    /// stopped: they relaunch on demand). On any error keeps the old config. A stopping
    /// daemon changes nothing: what a reload would start, the stop would not wait for.
    @discardableResult
    package func reload(restartingChanged: Bool = false) throws(ConfigurationErrors) -> ConfigChanges {
        guard !stopping else {
            logger.notice("reload ignored: the daemon is stopping")
            return ConfigChanges()
        }
        notifier.reloading()
        defer { notifier.reloaded(status: summary) }
        let started = ContinuousClock.now
        let read: Configuration
        do {
            read = try readConfiguration()
        } catch {
            reloads.record(succeeded: false, after: ContinuousClock.now - started)
            logger.error("reload failed, keeping the running configuration: \(error)")
            throw error
        }
        defer { reloads.record(succeeded: true, after: ContinuousClock.now - started) }
        let (next, waitingForRestart) = read.keepingRestartOnlySettings(of: configuration.supervisor)
        var changes = registry.changes(to: next)
        changes.waitingForRestart = waitingForRestart
        configuration = next
        Self.reserveDescriptorTable(for: next)
        supervisor.isolation.apply(next)
        settleRemovedApps()
        do {
            try control?.apply(ControlAccess(next.supervisor))
        } catch {
            events.record(.error, nil, "control.sock after reload: \(error)")
        }
        for removed in registry.apply(next) {
            supervisor.isolation.forget(removed.name)
            supervisor.stop(removed, reason: .removed) { [unowned self, unowned removed] in
                self.supervisor.removeKeptGroup(of: removed)
                self.registry.retired(removed)
            }
        }
        extensions.configure(next.extensions, apps: next.apps, types: next.types)
        applyHostRules()
        watchDropIns()
        routeOutput()
        echoOutputOfNewProcesses()
        try? cgroups.setBackstop(for: next.supervisor.memoryBudget)
        do {
            try pressure.apply(next)
        } catch {
            events.record(.error, nil, "pressure detection after reload: \(error)")
        }
        if restartingChanged {
            for process in changes.changed.compactMap({ registry[$0] }) where process.isAlive || supervisor.isLaunching(process) {
                supervisor.stop(process, reason: .changed) { [unowned self, unowned process] in
                    if process.kind != .extension { try? self.supervisor.start(process) }
                }
            }
        }
        startAutostarted()
        prepareLaunchesAhead()
        let sizes = [("HOSTS", next.hosts.count), ("APPS", next.apps.count), ("EXTENSIONS", next.extensions.count)]
        let counts = sizes + [("ADDED", changes.added.count), ("CHANGED", changes.changed.count), ("REMOVED", changes.removed.count)]
        let added = "added \(changes.added.count), changed \(changes.changed.count), removed \(changes.removed.count)"
        let message = "reloaded \(configPath): \(summary); \(added)\(ControlCommands.restartNote(changes))"
        events.record(.reload, nil, message, figures: [("CONFIG", configPath)] + counts.map { ($0.0, "\($0.1)") })
        return changes
    }
}
