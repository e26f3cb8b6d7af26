import ControlProtocol
import DaemonSupport
import ExtensiondConfig
import Glibc
import Logging
import Output
import Supervisor
import Systemd

/// `extensiond`: the daemon's command line.
@main
struct Extensiond {
    let config: String
    let checkConfig: Bool
    let foreground: Bool
    let verbose: Bool

    /// Usage errors exit 2, as supervisorctl's do.
    static func main() {
        let request: DaemonArguments.Request
        do {
            request = try DaemonArguments.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            printError(DaemonUsage.error(error), newline: false)
            Glibc.exit(2)
        }
        switch request {
        case .help: print(DaemonUsage.help, terminator: "")
        case .version: print(extensiondVersion)
        case .manPage: print(DaemonManPage.text, terminator: "")
        case .run(let arguments):
            let command = Extensiond(
                config: arguments.config, checkConfig: arguments.checkConfig,
                foreground: arguments.foreground, verbose: arguments.verbose)
            do {
                try command.run()
            } catch let exit as DaemonExit {
                Glibc.exit(exit.code)
            } catch {
                printError("\(error)")
                Glibc.exit(1)
            }
        }
    }

    func run() throws {
        ActivatedSockets.closeInherited()
        let configuration: Configuration
        do {
            configuration = try ConfigurationLoader.load(path: config)
        } catch {
            Self.printError(error.description)
            throw DaemonExit(code: 1)
        }
        if checkConfig {
            do {
                // What only the kernel can judge, such as the PSI trigger's window.
                try Daemon.checkKernelSettings(configuration)
            } catch {
                Self.printError("\(config): \(error)")
                throw DaemonExit(code: 1)
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
            let daemon = try Daemon(
                configuration: configuration, configPath: config, logger: logger, logRing: ring,
                echoOutput: foreground && !service, systemdService: service)
            let code = try daemon.run()
            if code != 0 { throw DaemonExit(code: code) }
        } catch let error as SupervisorError {
            logger.critical("\(error)")
            throw DaemonExit(code: 1)
        }
    }

    private static func environment() -> [String: String] {
        var variables: [String: String] = [:]
        for name in ["JOURNAL_STREAM", "INVOCATION_ID"] {
            if let value = getenv(name) { variables[name] = String(cString: value) }
        }
        return variables
    }

    private static func printError(_ message: String, newline: Bool = true) {
        var line = message
        if newline { line += "\n" }
        _ = line.utf8.withContiguousStorageIfAvailable { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// Ends the daemon with an exit status, after the message (if any) was printed or logged.
struct DaemonExit: Error {
    let code: Int32
}
