import ArgumentParser
import ControlProtocol

struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Reread the config and apply it; changed processes take their new definition at their next start.",
        discussion: "On any error the daemon keeps the old config. update also restarts what changed."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let response = try global.call(.reload)
        global.show(response) { $0.message }
    }
}

struct Reread: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reread", abstract: "What update would add, change and remove; changes nothing.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let response = try global.call(.reread)
        global.show(response) { response in
            guard let changes = response.changes else { return nil }
            let lines =
                changes.added.map { "\($0): available" } + changes.changed.map { "\($0): changed" }
                + changes.removed.map { "\($0): disappeared" }
            return lines.isEmpty ? "No config updates to processes" : lines.joined(separator: "\n")
        }
    }
}

struct Update: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Apply the config file: start what it adds, stop what it removes, restart only what changed.",
        discussion: "Processes whose definition did not change keep running with the same pid. Changed extensions are stopped; they relaunch on demand."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let response = try global.call(.update)
        global.show(response) { response in
            guard let changes = response.changes else { return response.message }
            let lines =
                changes.added.map { "\($0): added" } + changes.changed.map { "\($0): updated" }
                + changes.removed.map { "\($0): removed" }
            return lines.isEmpty ? "No config updates to processes" : lines.joined(separator: "\n")
        }
    }
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "The versions of supervisorctl and the daemon.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        var response = try global.call(.version)
        response.version?.client = extensiondVersion
        global.show(response) { response in
            guard let version = response.version else { return nil }
            return "supervisorctl \(extensiondVersion)\nextensiond \(version.daemon) (protocol \(version.protocolVersion)"
                + (version.cgroupBackend.map { ", cgroup \($0)" } ?? "") + ")"
                + (version.isolation.map { "\nisolation: \($0)" } ?? "")
        }
    }
}
