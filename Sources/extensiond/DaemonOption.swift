/// One option of the daemon's command line: what the parser accepts and what `--help` and
/// extensiond(8) say, from the one table ``DaemonArguments/options``.
struct DaemonOption {
    /// The long name without dashes: `config`.
    let name: String
    /// A one-letter name without its dash (`h`), if the option has one.
    var shortName: String? = nil
    /// The shown name of the option's value (`<config>`); `nil` for a flag.
    let valueName: String?
    let abstract: String
    var defaultValue: String? = nil
    /// Whether the option changes how the daemon runs; the others (`--help`) print and exit,
    /// and are left out of the usage line.
    var isRun = true

    static func flag(_ name: String, _ abstract: String) -> DaemonOption {
        DaemonOption(name: name, valueName: nil, abstract: abstract)
    }

    /// A flag that prints something and exits.
    static func information(_ name: String, shortName: String? = nil, _ abstract: String) -> DaemonOption {
        DaemonOption(name: name, shortName: shortName, valueName: nil, abstract: abstract, isRun: false)
    }

    /// `--config <config>` or `--verbose`.
    var synopsis: String { "--" + name + (valueName.map { " <\($0)>" } ?? "") }

    /// `-h, --help` or the synopsis: how help lists the option.
    var label: String { (shortName.map { "-\($0), " } ?? "") + synopsis }

    /// The abstract and the default value, as help and the man page describe the option.
    var description: String { abstract + (defaultValue.map { " (default: \($0))" } ?? "") }

    /// Whether `argument` (without any `=value`) names this option.
    func isNamed(by argument: String) -> Bool {
        argument == "--" + name || shortName.map { argument == "-" + $0 } == true
    }
}
