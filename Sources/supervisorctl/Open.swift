import ArgumentParser
import ControlProtocol

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Route a URL to the app that handles its scheme, as an extension's openURL would."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "A URL such as weather://today.") var url: String

    func run() throws {
        let response = try global.call(ControlRequest(command: .open, names: [url]))
        print(response.message ?? "opened \(url)")
    }
}
