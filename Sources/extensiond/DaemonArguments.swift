import ExtensiondConfig

/// The daemon's command line, parsed by hand: a handful of options do not justify an
/// argument parser that links Foundation into the daemon.
struct DaemonArguments {
    var config = ConfigurationLoader.defaultPath
    var checkConfig = false
    var foreground = false
    var verbose = false

    /// Every option: the parser accepts no other, and help and the man page list these.
    static let options: [DaemonOption] = [
        DaemonOption(
            name: "config", valueName: "config", abstract: "The config file; drop-ins are read from <name>.d/ beside it.",
            defaultValue: ConfigurationLoader.defaultPath),
        .flag("check-config", "Validate the config (and its drop-ins), print the errors and exit."),
        .flag("foreground", "For a terminal: timestamps and level names instead of journald priority prefixes, and every process's output copied to stderr."),
        .flag("verbose", "Log debug messages."),
        .information("version", "Show the version."),
        .information("help", shortName: "h", "Show help information."),
        .information("help-man", "Print the manual page extensiond(8) in troff."),
    ]

    /// What the command line asks for.
    enum Request {
        case run(DaemonArguments)
        case help
        case version
        case manPage
    }

    /// A usage error: the message names the argument at fault.
    struct UsageError: Error {
        let message: String
        /// The option's own line of help, when the error is about a known option.
        var option: DaemonOption?
    }

    /// Parses `arguments` (without the program name): `--name value`, `--name=value`, flags.
    static func parse(_ arguments: [String]) throws(UsageError) -> Request {
        var parsed = DaemonArguments()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var (name, inlineValue) = split(argument)
            guard let option = options.first(where: { $0.isNamed(by: name) }) else {
                throw UsageError(message: argument.hasPrefix("-") ? "Unknown option '\(name)'" : "Unexpected argument '\(argument)'")
            }
            if option.valueName == nil {
                if inlineValue != nil { throw UsageError(message: "The flag '\(name)' does not take a value", option: option) }
            } else if inlineValue == nil, let next = remaining.first, !next.hasPrefix("-") {
                remaining.removeFirst()
                inlineValue = next
            }
            switch option.name {
            case "help": return .help
            case "version": return .version
            case "help-man": return .manPage
            case "check-config": parsed.checkConfig = true
            case "foreground": parsed.foreground = true
            case "verbose": parsed.verbose = true
            case "config":
                // A value after `=` is taken as is; a separate one must not look like an option.
                guard let value = inlineValue, !value.isEmpty else {
                    throw UsageError(message: "Missing value for '\(option.synopsis)'", option: option)
                }
                parsed.config = value
            default: preconditionFailure("--\(option.name) is in DaemonArguments.options but not parsed")
            }
        }
        return .run(parsed)
    }

    /// `--name=value` as its two parts; anything else as is.
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
