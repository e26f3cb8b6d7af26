import ArgumentParser
import ControlProtocol

// Commands on extensions that name them and print the daemon's answer: the shape of
// `start`/`stop`/`restart` (``ProcessControlCommand``).

struct Enable: ProcessControlCommand {
    static let configuration = CommandConfiguration(abstract: "Enable extensions, so that hosts may pull them (persisted).")
    static let command = ControlCommand.enable
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Extension ids.") var names: [String]
}

struct Disable: ProcessControlCommand {
    static let configuration = CommandConfiguration(abstract: "Disable extensions: hosts can no longer pull them (persisted).")
    static let command = ControlCommand.disable
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Extension ids.") var names: [String]
}

struct Refresh: ProcessControlCommand {
    static let configuration = CommandConfiguration(abstract: "Ask a widget for a manual update (spends no budget).")
    static let command = ControlCommand.refresh
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("An extension id.", valueName: "extension")) var name: String
    var names: [String] { [name] }
}
