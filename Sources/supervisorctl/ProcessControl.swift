import ArgumentParser
import ControlProtocol

/// Commands that send names and print the daemon's message: `start`, `stop`,
/// `restart`, `enable`, `disable` and `refresh`. One type each, one shape.
protocol ProcessControlCommand: ParsableCommand {
    static var command: ControlCommand { get }
    var global: GlobalOptions { get }
    var names: [String] { get }
}

extension ProcessControlCommand {
    func run() throws {
        let response = try global.call(ControlRequest(command: Self.command, names: names))
        print(response.message ?? "ok")
    }
}

struct Start: ProcessControlCommand {
    static let configuration = CommandConfiguration(abstract: "Start hosts, apps or extensions (clears fatal).")
    static let command = ControlCommand.start
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Names, or all.") var names: [String]
}

struct Stop: ProcessControlCommand {
    static let configuration = CommandConfiguration(abstract: "Stop gracefully; the whole cgroup is killed after the grace period.")
    static let command = ControlCommand.stop
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Names, or all.") var names: [String]
}

struct Restart: ProcessControlCommand {
    static let configuration = CommandConfiguration(abstract: "Stop, then start.")
    static let command = ControlCommand.restart
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Names, or all.") var names: [String]
}
