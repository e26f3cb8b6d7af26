/// The daemon's help and usage errors, from its option list (``DaemonArguments/options``).
enum DaemonUsage {
    static let abstract = "Launch app extensions on demand in their own cgroups under memory limits."
    static let discussion = "Runs in the foreground (it never forks): under systemd as a Type=notify service, or in a terminal."
    static let exitCodes = "Exit codes: 0 stopped cleanly or the config is valid, 1 the config is invalid or the daemon failed, 2 usage error."

    static var synopsis: String {
        "extensiond " + DaemonArguments.options.filter(\.isRun).map { "[\($0.synopsis)]" }.joined(separator: " ")
    }

    /// `--help`: overview, usage and every option, wrapped to 80 columns.
    static var help: String {
        var text = wrap("OVERVIEW: " + abstract, indent: 0) + "\n\n" + wrap(discussion + " " + exitCodes, indent: 0) + "\n\n"
        text += "USAGE: " + synopsis + "\n\nOPTIONS:\n"
        for option in DaemonArguments.options {
            let label = option.label
            let padded = "  " + label + String(repeating: " ", count: max(1, 24 - label.count))
            text += padded + wrap(option.description, indent: 26).dropFirst(26) + "\n"
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
}
