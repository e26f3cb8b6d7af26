import ControlProtocol

/// extensiond(8) in troff, from the same option list and words as `--help`: the page
/// shipped as docs/man/extensiond.8 is this output (`make man` writes it, and
/// `DaemonUsageTests` checks that the two agree).
enum DaemonManPage {
    static var text: String {
        var lines = [
            #".TH "EXTENSIOND" "8" "" "extensiond \#(extensiondVersion)" "System Administration""#,
            ".SH NAME", "extensiond \\- " + escape(DaemonUsage.abstract),
            ".SH SYNOPSIS", ".B extensiond",
            DaemonArguments.options.filter(\.isRun).map { "[" + synopsis($0) + "]" }.joined(separator: " "),
            ".SH DESCRIPTION",
        ]
        lines += [".PP", escape(DaemonUsage.discussion), ".SH OPTIONS"]
        for option in DaemonArguments.options {
            let short = option.shortName.map { "\\fB\\-" + escape($0) + "\\fR, " } ?? ""
            lines += [".TP", short + synopsis(option), escape(option.description)]
        }
        lines += [
            ".SH EXIT STATUS", escape(DaemonUsage.exitCodes),
            ".SH FILES",
            ".TP", "/etc/extensiond/extensiond.toml", "The configuration, and drop-ins in /etc/extensiond/extensiond.d/.",
            ".TP", "/run/extensiond/control.sock", "The control socket.",
            ".SH SEE ALSO",
            "\\fBsupervisorctl\\fR(1), \\fBextensiond.toml\\fR(5), \\fBsystemctl\\fR(1), \\fBjournalctl\\fR(1);",
            "/usr/share/doc/extensiond/README.md and /usr/share/doc/extensiond/docs/.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `\fB\-\-config\fR \fIconfig\fR`: the name bold, the value's name italic.
    private static func synopsis(_ option: DaemonOption) -> String {
        "\\fB" + escape("--" + option.name) + "\\fR" + (option.valueName.map { " \\fI" + escape($0) + "\\fR" } ?? "")
    }

    /// Plain text as roff: backslashes and hyphens escaped, and a dot or quote that would
    /// start a request at the beginning of the line made text.
    private static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            default: escaped.append(character)
            }
        }
        if let first = escaped.first, first == "." || first == "'" { escaped = "\\&" + escaped }
        return escaped
    }
}
