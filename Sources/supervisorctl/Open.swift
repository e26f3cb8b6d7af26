import ArgumentParser
import ControlProtocol

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Route a URL to the app that handles its scheme, as an extension's openURL would."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "A URL such as weather://today.") var url: String

    func run() throws {
        let response = try global.call(.open(OpenRequest(url: url)))
        global.show(response) { $0.message }
    }
}
