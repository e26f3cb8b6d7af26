/// The control socket and `supervisorctl`'s commands, answered from the components
/// passed in (``ControlCommands``), and who may run what (``ControlAccess``).
///
/// This module owns reading requests and shaping answers. It must not hold state of its own
/// about processes or extensions, nor apply a configuration (the daemon does, through
/// ``ControlledDaemon``).
import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensionCoordination
import ExtensiondConfig
import Glibc
import Hosts
import Output
import Pressure
import Processes

/// The daemon's answers to `supervisorctl`: the commands on processes. The others are in
/// ``handleLogCommand(_:_:)``, ``handleConfigCommand(_:_:)``,
/// ``handleExtensionCommand(_:_:)`` and ``handleGroupCommand(_:_:)``.
package final class ControlCommands {
    let loop: EventLoop
    let events: EventLog
    let registry: ProcessRegistry
    let cgroups: CgroupRoot
    let supervisor: ProcessSupervisor
    let extensions: ExtensionCoordinator
    let pressure: MemoryPressure
    let logRing: DaemonLogRing
    /// What the daemon does with its configuration and URLs: it owns them.
    private unowned let daemon: ControlledDaemon

    package init(
        loop: EventLoop, events: EventLog, registry: ProcessRegistry, cgroups: CgroupRoot, supervisor: ProcessSupervisor,
        extensions: ExtensionCoordinator, pressure: MemoryPressure, logRing: DaemonLogRing, daemon: ControlledDaemon
    ) {
        self.loop = loop
        self.events = events
        self.registry = registry
        self.cgroups = cgroups
        self.supervisor = supervisor
        self.extensions = extensions
        self.pressure = pressure
        self.logRing = logRing
        self.daemon = daemon
    }

    var configuration: Configuration { daemon.configuration }
    var summary: String { daemon.summary }
    func readConfiguration() throws(ConfigurationErrors) -> Configuration { try daemon.readConfiguration() }
    func reload(restartingChanged: Bool = false) throws(ConfigurationErrors) -> ConfigChanges { try daemon.reload(restartingChanged: restartingChanged) }
    func whenStateRecorded(then body: @escaping (String?) -> Void) { daemon.whenStateRecorded(then: body) }
    @discardableResult
    func open(_ url: String, from source: String) throws(OpenURLError) -> String { try daemon.open(url, from: source, onlyIn: nil) }

    package func handle(_ request: ControlRequest, _ session: ControlSession) {
        switch request {
        case .status(let selection):
            selecting(selection, session) { processes in
                let now = loop.now
                var answer = StatusAnswer(expectedEntries: processes.count)
                for process in processes {
                    var status = process.status(now: now)
                    if let record = extensions.records[process.name] { record.annotate(&status, now: now) }
                    if let error = defaultsStorageError(of: process) { status.error = (status.error.map { $0 + "; " } ?? "") + error }
                    answer.append(status)
                }
                session.reply(line: answer.finish())
            }
        case .stats(let selection):
            selecting(selection, session) { processes in
                session.reply(ControlResponse(stats: statsReport(for: processes)))
            }
        case .start(let selection):
            selecting(selection, session) { processes in
                startAll(processes, saying: "started") { [unowned self] outcome in session.reply(self.each(processes, named: selection, outcome)) }
            }
        case .stop(let selection), .restart(let selection):
            let restart = request.command == .restart
            selecting(selection, session) { processes in
                let running = processes.filter { $0.isAlive || $0.state == .backoff || supervisor.isLaunching($0) }
                stopAll(restart ? processes : running) { [unowned self] in
                    guard restart else {
                        return session.reply(
                            each(processes, named: selection) { process in
                                running.contains { $0 === process } ? .done("stopped") : .alreadyDone("not running")
                            })
                    }
                    startAll(processes, saying: "restarted") { [unowned self] outcome in session.reply(self.each(processes, named: selection, outcome)) }
                }
            }
        case .signal(let request):
            let number = SignalName.number(request.signal) ?? SIGTERM
            selecting(NameSelection(request.names), session) { processes in
                session.reply(
                    each(processes, named: NameSelection(request.names)) { process in
                        do {
                            guard try supervisor.signal(process, number) else { return .alreadyDone("not running") }
                            return .done("signalled \(request.signal)")
                        } catch {
                            return .failed("\(error)")
                        }
                    })
            }
        case .pid(let request):
            guard let name = request.name else { return session.reply(ControlResponse(pid: getpid())) }
            guard let process = registry[name] else { return session.reply(.failure(UnknownNameError(name: name).description, code: .unknownName)) }
            session.reply(ControlResponse(pid: process.run?.pid))
        case .purge(let selection):
            let outcomes = selection.names.map { app in (app, daemon.purgeRemovedApp(app)) }
            let errors = outcomes.compactMap { app, error in error.map { "\(app): ERROR (\($0))" } }
            let message = outcomes.filter { $0.1 == nil }.map { "\($0.0): purged" }.joined(separator: "\n")
            // Answered once the ids freed are on disk.
            daemon.whenStateRecorded { _ in
                session.reply(
                    errors.isEmpty
                        ? ControlResponse(message: message)
                        : ControlResponse(ok: false, error: errors.joined(separator: "\n"), code: .failed, message: message.isEmpty ? nil : message))
            }
        case .clear(let selection):
            selecting(selection, session) { processes in
                session.reply(
                    each(processes, named: selection) { process in
                        process.output.clear()
                        return .done("cleared")
                    })
            }
        case .tail, .events, .maintail:
            handleLogCommand(request, session)
        case .avail, .reload, .reread, .update:
            handleConfigCommand(request, session)
        case .pressure:
            session.reply(ControlResponse(pressure: pressure.report()))
        case .version:
            session.reply(
                ControlResponse(
                    version: VersionInfo(
                        daemon: extensiondVersion, protocolVersion: 1, cgroupBackend: cgroups.tree.version.rawValue,
                        isolation: supervisor.isolation.summary)))
        case .pull, .refresh, .enable, .disable, .perform:
            handleExtensionCommand(request, session)
        case .open, .defaults:
            handleGroupCommand(request, session)
        }
    }

    /// Resolves the selection's names (globs, `APP:*`, all when none) or answers with the error.
    func selecting(_ selection: NameSelection, _ session: ControlSession, _ body: ([SupervisedProcess]) -> Void) {
        do {
            body(try registry.select(selection.names))
        } catch {
            session.reply(.failure(error.description, code: .unknownName))
        }
    }

    /// What a command did to one process.
    enum Outcome {
        case done(String)
        /// Nothing to do: an error for a process named exactly, skipped for `all` or a pattern.
        case alreadyDone(String)
        case failed(String)
    }

    /// Applies `body` to each process; one line per process (`w1: started`,
    /// `w2: ERROR (already started)`), failed when any line is an error.
    func each(_ processes: [SupervisedProcess], named selection: NameSelection, _ body: (SupervisedProcess) -> Outcome) -> ControlResponse {
        var done: [String] = []
        var errors: [String] = []
        for process in processes {
            switch body(process) {
            case .done(let what): done.append("\(process.name): \(what)")
            case .alreadyDone(let why) where selection.names.contains(process.name): errors.append("\(process.name): ERROR (\(why))")
            case .alreadyDone: break
            case .failed(let why): errors.append("\(process.name): ERROR (\(why))")
            }
        }
        let message = done.isEmpty ? nil : done.joined(separator: "\n")
        return errors.isEmpty
            ? ControlResponse(message: message ?? "nothing to do")
            : ControlResponse(ok: false, error: errors.joined(separator: "\n"), code: .failed, message: message)
    }

    /// Starts each process by hand, then calls `completion` once every spawn has come
    /// back, with what happened to each: a spawn that failed (beside the loop) is answered.
    private func startAll(
        _ processes: [SupervisedProcess], saying started: String, then completion: @escaping ((SupervisedProcess) -> Outcome) -> Void
    ) {
        var outcomes: [ObjectIdentifier: Outcome] = [:]
        var remaining = processes.count + 1
        let settle = { (process: SupervisedProcess?, outcome: Outcome) in
            if let process { outcomes[ObjectIdentifier(process)] = outcome }
            remaining -= 1
            if remaining == 0 { completion { outcomes[ObjectIdentifier($0)] ?? .done(started) } }
        }
        for process in processes {
            guard !process.isAlive, !supervisor.isLaunchingToStay(process) else {
                settle(process, .alreadyDone("already started"))
                continue
            }
            do {
                try supervisor.startByHand(process) { error in settle(process, error.map { .failed("\($0)") } ?? .done(started)) }
            } catch {
                settle(process, .failed("\(error)"))
            }
        }
        settle(nil, .done(started))
    }

    private func stopAll(_ processes: [SupervisedProcess], then completion: @escaping () -> Void) {
        var remaining = processes.count
        guard remaining > 0 else { return completion() }
        for process in processes {
            supervisor.stop(process, reason: .manual) {
                remaining -= 1
                if remaining == 0 { completion() }
            }
        }
    }
}
