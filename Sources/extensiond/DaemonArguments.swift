import ExtensiondConfig

/// The daemon's command line, parsed by hand: four options do not justify an argument
/// parser that links Foundation into the daemon.
struct DaemonArguments {
    var config = ConfigurationLoader.defaultPath
    var checkConfig = false
    var foreground = false
    var verbose = false

    static let options: [DaemonOption] = [
        DaemonOption(name: "config", valueName: "config", abstract: "The config file; drop-ins are read from <name>.d/ beside it and package_drop_in_dir.",
                     defaultValue: ConfigurationLoader.defaultPath),
        .flag("check-config", "Validate the config (and its drop-ins), print the errors and exit."),
        .flag("foreground", "For a terminal: timestamps and level names instead of journald priority prefixes, and every process's output copied to stderr."),
        .flag("verbose", "Log debug messages."),
    ]

    /// What the command line asks for.
    enum Request {
        case run(DaemonArguments)
        case help
        case version
        /// The options as swift-argument-parser's JSON, which scripts/man-pages reads.
        case dumpHelp
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
            let (name, inlineValue) = split(argument)
            switch name {
            case "-h", "--help": return .help
            case "--version": return .version
            case "--experimental-dump-help": return .dumpHelp
            case "--config":
                guard let value = inlineValue ?? remaining.popFirst(), !value.hasPrefix("--") || inlineValue != nil else {
                    throw UsageError(message: "Missing value for '--config <config>'", option: options[0])
                }
                parsed.config = value
                continue
            case "--check-config": parsed.checkConfig = true
            case "--foreground": parsed.foreground = true
            case "--verbose": parsed.verbose = true
            default:
                throw UsageError(message: argument.hasPrefix("-") ? "Unknown option '\(name)'" : "Unexpected argument '\(argument)'")
            }
            if inlineValue != nil { throw UsageError(message: "The flag '\(name)' does not take a value") }
        }
        return .run(parsed)
    }

    /// `--name=value` as its two parts; anything else as is.
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
