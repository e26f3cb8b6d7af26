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
                session.reply(ControlResponse(message: "updated: \(Self.describe(changes))\(Self.restartNote(changes))", changes: changes))
            case .reload:
                let changes = try reload()
                session.reply(ControlResponse(message: "reloaded: \(summary)\(Self.restartNote(changes))", changes: changes))
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

    /// `next` with the `[supervisor]` keys that only a restart applies (the sockets, the
    /// state, the cgroup tree, the metrics listener and the identities are set up at start)
    /// kept at their running values, and the keys among them that `next` changes.
    static func applicable(_ next: Configuration, running: SupervisorSettings) -> (configuration: Configuration, waitingForRestart: [String]) {
        var applied = next
        var waiting: [String] = []
        func keep<Value: Equatable>(_ key: String, _ setting: WritableKeyPath<SupervisorSettings, Value>) {
            guard next.supervisor[keyPath: setting] != running[keyPath: setting] else { return }
            waiting.append("supervisor." + key)
            applied.supervisor[keyPath: setting] = running[keyPath: setting]
        }
        keep("runtime_dir", \.runtimeDirectory)
        keep("state_dir", \.stateDirectory)
        keep("cgroup", \.cgroup)
        keep("metrics_listen", \.metricsListen)
        keep("user_range", \.userRange)
        return (applied, waiting)
    }

    /// `; not applied until the next start: supervisor.runtime_dir`, or nothing.
    static func restartNote(_ changes: ConfigChanges) -> String {
        changes.waitingForRestart.isEmpty ? "" : "; not applied until the next start: " + changes.waitingForRestart.joined(separator: ", ")
    }

    /// `added a, b; changed c; removed nothing`.
    static func describe(_ changes: ConfigChanges) -> String {
        [("added", changes.added), ("changed", changes.changed), ("removed", changes.removed)].map { verb, names in
            "\(verb) " + (names.isEmpty ? "nothing" : names.joined(separator: ", "))
        }.joined(separator: "; ")
    }
}
