import WireProtocol

/// The daemon's help, usage errors and the machine-readable description of its options.
enum DaemonUsage {
    static let abstract = "Launch app extensions on demand in their own cgroups under memory limits."
    static let discussion = """
        Runs in the foreground (it never forks): under systemd as a Type=notify service, or in a terminal. \
        Exit codes: 0 stopped cleanly or the config is valid, 1 the config is invalid or the daemon failed, 2 usage error.
        """

    static var synopsis: String {
        "extensiond " + DaemonArguments.options.map { "[\($0.synopsis)]" }.joined(separator: " ")
    }

    /// `--help`: overview, usage and every option, wrapped to 80 columns.
    static var help: String {
        var text = wrap("OVERVIEW: " + abstract, indent: 0) + "\n\n" + wrap(discussion, indent: 0) + "\n\n"
        text += "USAGE: " + synopsis + "\n\nOPTIONS:\n"
        let shown = DaemonArguments.options.map { ($0.synopsis, $0.abstract + ($0.defaultValue.map { " (default: \($0))" } ?? "")) }
            + [("--version", "Show the version."), ("-h, --help", "Show help information.")]
        for (label, abstract) in shown {
            let padded = "  " + label + String(repeating: " ", count: max(1, 24 - label.count))
            text += padded + wrap(abstract, indent: 26).dropFirst(26) + "\n"
        }
        return text
    }

    /// A usage error as ArgumentParser printed it.
    static func error(_ error: DaemonArguments.UsageError) -> String {
        var text = "Error: " + error.message + "\n"
        if let option = error.option { text += "Help:  \(option.synopsis)  \(option.abstract)\n" }
        return text + "Usage: \(synopsis)\n  See 'extensiond --help' for more information.\n"
    }

    /// Words of `text` in lines of at most 80 columns, each indented by `indent` spaces.
    private static func wrap(_ text: String, indent: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && indent + line.count + 1 + word.count > 80 {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        let margin = String(repeating: " ", count: indent)
        return lines.map { margin + $0 }.joined(separator: "\n")
    }

    /// `--experimental-dump-help`: the fields of swift-argument-parser's JSON that
    /// scripts/man-pages reads, so that extensiond(8) is generated as before.
    static func dumpHelp() throws -> [UInt8] {
        let arguments = DaemonArguments.options.map(DumpedArgument.init)
            + [DumpedArgument(flag: "version", abstract: "Show the version.")]
        return try JSONCoding.encode(DumpedHelp(command: .init(
            commandName: "extensiond", abstract: abstract, discussion: discussion, arguments: arguments)))
    }

    private struct DumpedHelp: Encodable {
        var serializationVersion = 0
        var command: DumpedCommand
    }

    private struct DumpedCommand: Encodable {
        var commandName: String
        var abstract: String
        var discussion: String
        var arguments: [DumpedArgument]
        var shouldDisplay = true
    }

    private struct DumpedArgument: Encodable {
        struct Name: Encodable {
            var kind = "long"
            var name: String
        }

        var kind: String
        var names: [Name]
        var preferredName: Name
        var valueName: String
        var abstract: String
        var defaultValue: String?
        var isOptional = true
        var isRepeating = false
        var shouldDisplay = true

        init(_ option: DaemonOption) {
            kind = option.valueName == nil ? "flag" : "option"
            names = [Name(name: option.name)]
            preferredName = Name(name: option.name)
            valueName = option.valueName ?? option.name
            abstract = option.abstract
            defaultValue = option.defaultValue
        }

        init(flag: String, abstract: String) {
            self.init(DaemonOption.flag(flag, abstract))
        }
    }
}
