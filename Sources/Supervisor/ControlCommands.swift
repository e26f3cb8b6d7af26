import ControlProtocol
import EventLoop

/// The daemon's answers to `supervisorctl`.
extension Daemon {
    func handle(_ request: ControlRequest, _ session: ControlSession) {
        switch request.command {
        case .status:
            selecting(request, session) { processes in
                let now = loop.now
                session.reply(ControlResponse(status: processes.map { process in
                    var status = process.status(now: now)
                    if let record = extensions.records[process.name] { record.annotate(&status, now: now) }
                    return status
                }))
            }
        case .stats:
            selecting(request, session) { processes in
                session.reply(ControlResponse(stats: statsReport(for: processes)))
            }
        case .start:
            selecting(request, session, requireNames: true) { processes in
                var failures: [String] = []
                for process in processes {
                    do {
                        try supervisor.startByHand(process)
                    } catch {
                        failures.append("\(process.name): \(error)")
                    }
                }
                session.reply(failures.isEmpty
                    ? ControlResponse(message: "started \(processes.map(\.name).joined(separator: ", "))")
                    : .failure(failures.joined(separator: "\n")))
            }
        case .stop, .restart:
            selecting(request, session, requireNames: true) { processes in
                let restart = request.command == .restart
                stopAll(processes) { [unowned self] in
                    var failures: [String] = []
                    if restart {
                        for process in processes {
                            do { try supervisor.startByHand(process) } catch { failures.append("\(process.name): \(error)") }
                        }
                    }
                    let verb = restart ? "restarted" : "stopped"
                    session.reply(failures.isEmpty
                        ? ControlResponse(message: "\(verb) \(processes.map(\.name).joined(separator: ", "))")
                        : .failure(failures.joined(separator: "\n")))
                }
            }
        case .tail:
            guard request.names.count == 1, let process = registry[request.names[0]] else {
                return session.reply(.failure(request.names.count == 1 ? UnknownNameError(name: request.names[0]).description : "tail takes exactly one name"))
            }
            let count = Int(request.options["lines"] ?? "") ?? 20
            let follow = request.options["follow"] == "true"
            if follow {
                session.stream(ControlResponse(lines: process.output.lastLines(count)))
                let token = session
                process.output.follow(token) { line in session.stream(ControlResponse(lines: [String(line.dropLast())])) }
                session.onEnd = { [unowned process] in process.output.unfollow(token) }
            } else {
                session.reply(ControlResponse(lines: process.output.lastLines(count), done: true))
            }
        case .events:
            let count = Int(request.options["count"] ?? "") ?? 50
            if request.options["follow"] == "true" {
                session.stream(ControlResponse(events: events.recent(count)))
                let token = session
                events.follow(token) { event in session.stream(ControlResponse(events: [event])) }
                session.onEnd = { [unowned self] in self.events.unfollow(token) }
            } else {
                session.reply(ControlResponse(events: events.recent(count), done: true))
            }
        case .reload:
            if let errors = reload() {
                session.reply(.failure("the configuration was not reloaded; the daemon keeps running with the old one:\n\(errors)"))
            } else {
                session.reply(ControlResponse(message: "reloaded: \(summary)"))
            }
        case .pressure:
            session.reply(ControlResponse(pressure: pressure.report()))
        case .version:
            session.reply(ControlResponse(version: VersionInfo(daemon: extensiondVersion, protocolVersion: 1, cgroupBackend: cgroups.tree.version.rawValue)))
        case .pull, .refresh, .enable, .disable, .perform:
            handleExtensionCommand(request, session)
        case .open, .defaults:
            handleGroupCommand(request, session)
        }
    }

    /// Resolves the request's names (all when none, unless `requireNames`) or answers with the error.
    private func selecting(_ request: ControlRequest, _ session: ControlSession, requireNames: Bool = false, _ body: ([SupervisedProcess]) -> Void) {
        if requireNames && request.names.isEmpty {
            return session.reply(.failure("\(request.command.rawValue) needs at least one name, or all"))
        }
        do {
            body(try registry.select(request.names))
        } catch {
            session.reply(.failure(error.description))
        }
    }

    private func stopAll(_ processes: [SupervisedProcess], then completion: @escaping () -> Void) {
        var remaining = processes.count
        guard remaining > 0 else { return completion() }
        for process in processes {
            supervisor.stop(process, reason: "manual") {
                remaining -= 1
                if remaining == 0 { completion() }
            }
        }
    }
}
