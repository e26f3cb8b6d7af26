import ArgumentParser
import ControlProtocol
import ExtensiondConfig
import Glibc
import Journal
import Logging
import Supervisor

/// `extensiond`: the daemon's command line.
@main
struct Extensiond: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extensiond",
        abstract: "Launch app extensions on demand in their own cgroups under memory limits.",
        discussion: """
            Runs in the foreground (it never forks): under systemd as a Type=notify service, or in a terminal. \
            Exit codes: 0 stopped cleanly or the config is valid, 1 the config is invalid or the daemon failed, 2 usage error.
            """,
        version: extensiondVersion
    )

    @Option(name: .long, help: "The config file; drop-ins are read from <name>.d/ beside it.")
    var config: String = ConfigurationLoader.defaultPath

    @Flag(name: .long, help: "Validate the config (and its drop-ins), print the errors and exit.")
    var checkConfig = false

    @Flag(name: .long, help: "For a terminal: timestamps and level names instead of journald priority prefixes, and every process's output copied to stderr.")
    var foreground = false

    @Flag(name: .long, help: "Log debug messages.")
    var verbose = false

    /// Usage errors exit 2, as supervisorctl's do (ArgumentParser's own default is 64).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            printError(fullMessage(for: error))
            Glibc.exit(2)
        }
    }

    func run() throws {
        let configuration: Configuration
        do {
            configuration = try ConfigurationLoader.load(path: config)
        } catch {
            Self.printError(error.description)
            throw ExitCode.failure
        }
        if checkConfig {
            do {
                // What only the kernel can judge, such as the PSI trigger's window.
                try Daemon.checkKernelSettings(configuration)
            } catch {
                Self.printError("\(config): \(error)")
                throw ExitCode.failure
            }
            print("\(config): OK (\(configuration.hosts.count) hosts, \(configuration.apps.count) apps, \(configuration.extensions.count) extensions)")
            return
        }
        // A service's stderr is the journal whatever the flags say.
        let service = JournalEnvironment.isSystemdService(Self.environment())
        let format: JournalLogHandler.Format = foreground && !service ? .terminal : .journald
        let level: Logger.Level = verbose ? .debug : .info
        let ring = DaemonLogRing()
        LoggingSystem.bootstrap { label in
            var handler = JournalLogHandler(label: label, format: format, ring: ring)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "extensiond")
        do {
            let daemon = try Daemon(configuration: configuration, configPath: config, logger: logger, logRing: ring,
                                    echoOutput: foreground && !service, systemdService: service)
            let code = try daemon.run()
            if code != 0 { throw ExitCode(code) }
        } catch let error as SupervisorError {
            logger.critical("\(error)")
            throw ExitCode.failure
        }
    }

    private static func environment() -> [String: String] {
        var variables: [String: String] = [:]
        for name in ["JOURNAL_STREAM", "INVOCATION_ID"] {
            if let value = getenv(name) { variables[name] = String(cString: value) }
        }
        return variables
    }

    private static func printError(_ message: String) {
        var line = message
        line += "\n"
        _ = line.utf8.withContiguousStorageIfAvailable { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
