import ControlProtocol
import ExtensiondConfig

/// `avail`, `reread`, `update` and `reload`: the config file against the running config.
extension Daemon {
    func handleConfigCommand(_ request: ControlRequest, _ session: ControlSession) {
        do throws(ConfigurationErrors) {
            switch request {
            case .avail:
                session.reply(ControlResponse(available: available()))
            case .reread:
                session.reply(ControlResponse(changes: registry.changes(to: try readConfiguration())))
            case .update:
                let changes = try reload(restartingChanged: true)
                session.reply(ControlResponse(message: "updated: \(Self.describe(changes))", changes: changes))
            case .reload:
                let changes = try reload()
                let waiting = changes.waitingForRestart.isEmpty ? ""
                    : "; not applied until the next start: \(changes.waitingForRestart.joined(separator: ", "))"
                session.reply(ControlResponse(message: "reloaded: \(summary)\(waiting)", changes: changes))
            default:
                session.reply(.failure("internal: '\(request.command.rawValue)' is not a config command"))
            }
        } catch {
            session.reply(.failure("the configuration was not applied; the daemon keeps running with the old one:\n\(error)"))
        }
    }

    /// The running config's names, then those only the config file has (not in use until `update`).
    private func available() -> [AvailableProcess] {
        let running = registry.ordered.map {
            AvailableProcess(name: $0.name, kind: $0.kind, inUse: true, autostart: $0.definition.autostart)
        }
        guard let next = try? readConfiguration() else { return running }
        let added = Set(registry.changes(to: next).added)
        return running + ProcessRegistry.definitions(of: next).filter { added.contains($0.name) }.map {
            AvailableProcess(name: $0.name, kind: $0.definition.kind, inUse: false, autostart: $0.definition.autostart)
        }
    }

    /// The `[supervisor]` keys whose change only a restart applies: the sockets, the
    /// state, the cgroup tree, the metrics listener and the identities are set up at start.
    static func settingsWaitingForRestart(from running: SupervisorSettings, to next: SupervisorSettings) -> [String] {
        [("runtime_dir", running.runtimeDirectory == next.runtimeDirectory), ("state_dir", running.stateDirectory == next.stateDirectory),
         ("cgroup", running.cgroup == next.cgroup), ("metrics_listen", running.metricsListen == next.metricsListen),
         ("user_range", running.userRange == next.userRange)].filter { !$0.1 }.map { "supervisor." + $0.0 }
    }

    /// `added a, b; changed c; removed nothing`.
    static func describe(_ changes: ConfigChanges) -> String {
        [("added", changes.added), ("changed", changes.changed), ("removed", changes.removed)].map { verb, names in
            "\(verb) " + (names.isEmpty ? "nothing" : names.joined(separator: ", "))
        }.joined(separator: "; ")
    }
}
