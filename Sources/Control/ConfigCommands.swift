import ControlProtocol
import DaemonSupport
import ExtensiondConfig
import Processes

/// `avail`, `reread`, `update` and `reload`: the config file against the running config.
extension ControlCommands {
    func handleConfigCommand(_ request: ControlRequest, _ session: ControlSession) {
        do throws(ConfigurationErrors) {
            switch request {
            case .avail:
                session.reply(ControlResponse(available: available()))
            case .reread:
                session.reply(ControlResponse(changes: registry.changes(to: try readConfiguration())))
            case .update:
                let changes = try reload(restartingChanged: true)
                let message = "updated: \(Self.describe(changes))\(Self.restartNote(changes))"
                afterRecorded { session.reply(ControlResponse(message: message + $0, changes: changes)) }
            case .reload:
                let changes = try reload()
                let message = "reloaded: \(summary)\(Self.restartNote(changes))"
                afterRecorded { session.reply(ControlResponse(message: message + $0, changes: changes)) }
            default:
                session.reply(.failure("internal: '\(request.command.rawValue)' is not a config command"))
            }
        } catch {
            session.reply(.failure("the configuration was not applied; the daemon keeps running with the old one:\n\(error)"))
        }
    }

    /// Calls `answer` once what the config changed is on disk (beside the loop), with a
    /// note when it could not be written.
    private func afterRecorded(_ answer: @escaping (String) -> Void) {
        whenStateRecorded { failure in
            answer(Self.diskNote(failure))
        }
    }

    /// The running config's names, then those only the config file has (not in use until `update`).
    private func available() -> [AvailableProcess] {
        let running = registry.ordered.map {
            AvailableProcess(name: $0.name, kind: $0.kind, inUse: true, autostart: $0.definition.autostart)
        }
        guard let next = try? readConfiguration() else { return running }
        let added = Set(registry.changes(to: next).added)
        return running
            + ProcessRegistry.definitions(of: next).filter { added.contains($0.name) }.map {
                AvailableProcess(name: $0.name, kind: $0.definition.kind, inUse: false, autostart: $0.definition.autostart)
            }
    }

    /// `; not on disk yet (kept, tried again every second): ERROR` after a refused save, or nothing.
    static func diskNote(_ failure: (some CustomStringConvertible)?) -> String {
        failure.map { "; " + DurableRecord.notOnDisk($0) } ?? ""
    }

    /// `; not applied until the next start: supervisor.runtime_dir`, or nothing.
    package static func restartNote(_ changes: ConfigChanges) -> String {
        changes.waitingForRestart.isEmpty ? "" : "; not applied until the next start: " + changes.waitingForRestart.joined(separator: ", ")
    }

    /// `added a, b; changed c; removed nothing`.
    static func describe(_ changes: ConfigChanges) -> String {
        [("added", changes.added), ("changed", changes.changed), ("removed", changes.removed)].map { verb, names in
            "\(verb) " + (names.isEmpty ? "nothing" : names.joined(separator: ", "))
        }.joined(separator: "; ")
    }
}
