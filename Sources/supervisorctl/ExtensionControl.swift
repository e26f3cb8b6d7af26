import ArgumentParser
import ControlProtocol

// Commands on extensions that name them and print the daemon's answer: the shape of
// `start`/`stop`/`restart` (``ProcessControlCommand``).

struct Enable: ProcessControlCommand {
    static let configuration = CommandConfiguration(commandName: "enable", abstract: "Enable extensions, so that hosts may pull them (persisted).")
    static func request(_ names: NameSelection) -> ControlRequest { .enable(names) }
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Extension ids.", completion: NameCompletion.names) var names: [String]
}

struct Disable: ProcessControlCommand {
    static let configuration = CommandConfiguration(commandName: "disable", abstract: "Disable extensions: hosts can no longer pull them (persisted).")
    static func request(_ names: NameSelection) -> ControlRequest { .disable(names) }
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Extension ids.", completion: NameCompletion.names) var names: [String]
}

struct Refresh: ProcessControlCommand {
    static let configuration = CommandConfiguration(commandName: "refresh", abstract: "Ask a widget for a manual update (spends no budget).")
    static func request(_ names: NameSelection) -> ControlRequest { .refresh(names) }
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("An extension id.", valueName: "extension"), completion: NameCompletion.names) var name: String
    var names: [String] { [name] }
}
