import ArgumentParser
import ControlProtocol

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Route a URL to the app that handles its scheme, as an extension's openURL would."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "A URL such as weather://today.") var url: String

    func validate() throws {
        guard Self.hasScheme(url) else { throw ValidationError("'\(url)' is not a URL: it needs a scheme, as in weather://today") }
    }

    func run() throws {
        let response = try global.call(ControlRequest(command: .open, names: [url]))
        print(response.message ?? "opened \(url)")
    }

    /// `scheme:` first, the scheme as RFC 3986 §3.1 allows (a letter, then letters, digits, `+`, `-`, `.`).
    private static func hasScheme(_ url: String) -> Bool {
        guard let colon = url.firstIndex(of: ":"), let first = url.first, first.isASCII, first.isLetter else { return false }
        return url[..<colon].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }
}
