import ArgumentParser
import ExtensiondConfig
import Glibc
import Logging
import Supervisor

/// `extensiond`: the daemon's command line.
@main
struct Extensiond: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extensiond",
        abstract: "Launch app extensions on demand in their own cgroups under memory limits.",
        discussion: "Runs in the foreground (it never forks): under systemd as a Type=notify service, or in a terminal."
    )

    @Option(name: .long, help: "The config file; drop-ins are read from <name>.d/ beside it.")
    var config: String = ConfigurationLoader.defaultPath

    @Flag(name: .long, help: "Validate the config (and its drop-ins), print the errors and exit.")
    var checkConfig = false

    @Flag(name: .long, help: "For a terminal: timestamps and level names instead of journald priority prefixes, and every process's output copied to stderr.")
    var foreground = false

    @Flag(name: .long, help: "Log debug messages.")
    var verbose = false

    func run() throws {
        let configuration: Configuration
        do {
            configuration = try ConfigurationLoader.load(path: config)
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
        if checkConfig {
            do {
                // What only the kernel can judge, such as the PSI trigger's window.
                try Daemon.checkKernelSettings(configuration)
            } catch {
                printError("\(config): \(error)")
                throw ExitCode.failure
            }
            print("\(config): OK (\(configuration.hosts.count) hosts, \(configuration.apps.count) apps, \(configuration.extensions.count) extensions)")
            return
        }
        let format: JournalLogHandler.Format = foreground ? .terminal : .journald
        let level: Logger.Level = verbose ? .debug : .info
        LoggingSystem.bootstrap { label in
            var handler = JournalLogHandler(label: label, format: format)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "extensiond")
        do {
            let daemon = try Daemon(configuration: configuration, configPath: config, logger: logger, echoOutput: foreground)
            let code = try daemon.run()
            if code != 0 { throw ExitCode(code) }
        } catch let error as SupervisorError {
            logger.critical("\(error)")
            throw ExitCode.failure
        }
    }

    private func printError(_ message: String) {
        var line = message
        line += "\n"
        _ = line.utf8.withContiguousStorageIfAvailable { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
