/// The daemon's wiring: configuration, sockets, process table, signals and systemd.
///
/// This module owns the decisions of a running extensiond and the order of things at
/// start-up and shut-down. It reaches Linux only through the adapter modules
/// (EventLoop, Cgroup, LinuxProcess) and delegates every policy to ExtensiondPolicy.
import ControlProtocol
import EventLoop
import ExtensiondConfig
import Glibc
import Logging

/// A running extensiond.
public final class Daemon {
    private let loop: EventLoop
    private let configPath: String
    private var configuration: Configuration
    private let logger: Logger
    private let notifier = SystemdNotifier()
    private let registry: ProcessRegistry
    private var lock: RuntimeDirectoryLock?
    private var control: ControlServer?
    private var signalSources: [EventSource] = []

    /// A daemon for an already validated configuration loaded from `configPath`.
    public init(configuration: Configuration, configPath: String, logger: Logger) throws(SupervisorError) {
        EventLoop.blockChildSignal()
        do {
            loop = try EventLoop()
        } catch {
            throw .system(error)
        }
        self.configuration = configuration
        self.configPath = configPath
        self.logger = logger
        registry = ProcessRegistry(configuration)
    }

    /// Serves until SIGTERM or SIGINT; returns the process exit code.
    public func run() throws(SupervisorError) -> Int32 {
        let settings = configuration.supervisor
        do {
            try FileSystem.createDirectories(settings.runtimeDirectory)
            try FileSystem.createDirectories(settings.stateDirectory)
        } catch {
            throw .system(error)
        }
        lock = try RuntimeDirectoryLock(directory: settings.runtimeDirectory)
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
        let watchdog = loop.enableWatchdog()
        logger.info("extensiond \(extensiondVersion) serving \(settings.runtimeDirectory)/control.sock", metadata: [
            "config": "\(configPath)", "watchdog": "\(watchdog)",
        ])
        notifier.ready(status: summary)
        do {
            return try loop.run()
        } catch {
            throw .system(error)
        }
    }

    /// One line for `systemctl status`.
    private var summary: String {
        let running = registry.ordered.filter { $0.state == .running || $0.state == .idle }.count
        return "\(configuration.hosts.count) hosts, \(configuration.apps.count) apps, "
            + "\(configuration.extensions.count) extensions; \(running) running"
    }

    private func shutdown() {
        logger.info("stopping")
        notifier.stopping()
        control?.close()
        control = nil
        signalSources.removeAll()
        loop.exit(code: 0)
    }

    /// Rereads the config; on any error keeps the old one and returns the error.
    private func reload() -> ConfigurationErrors? {
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
            || next.supervisor.stateDirectory != configuration.supervisor.stateDirectory {
            logger.warning("runtime_dir and state_dir changes take effect at the next start")
        }
        configuration = next
        registry.apply(next)
        logger.info("reloaded \(configPath): \(summary)")
        return nil
    }

    private func handle(_ request: ControlRequest, _ session: ControlSession) {
        switch request.command {
        case .status:
            do {
                let now = loop.now
                session.reply(ControlResponse(status: try registry.select(request.names).map { $0.status(now: now) }))
            } catch {
                session.reply(.failure(error.description))
            }
        case .reload:
            if let errors = reload() {
                session.reply(.failure("the configuration was not reloaded; the daemon keeps running with the old one:\n\(errors)"))
            } else {
                session.reply(ControlResponse(message: "reloaded: \(summary)"))
            }
        case .version:
            session.reply(ControlResponse(version: VersionInfo(daemon: extensiondVersion, protocolVersion: 1)))
        default:
            session.reply(.failure("'\(request.command.rawValue)' is not available in this version of the daemon"))
        }
    }
}
