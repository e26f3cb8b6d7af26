import ArgumentParser
import ControlProtocol

struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reread the config and apply what changed; on any error the daemon keeps the old config."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let response = try global.call(ControlRequest(command: .reload))
        print(response.message ?? "reloaded")
    }
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The versions of supervisorctl and the daemon.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        print("supervisorctl \(extensiondVersion)")
        let response = try global.call(ControlRequest(command: .version))
        if let version = response.version {
            print("extensiond \(version.daemon) (protocol \(version.protocolVersion)\(version.cgroupBackend.map { ", cgroup \($0)" } ?? ""))")
        }
    }
}
