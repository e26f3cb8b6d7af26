/// `supervisorctl`: view and control a running extensiond.
import ArgumentParser
import ControlProtocol
import Glibc

@main
struct Supervisorctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "supervisorctl",
        abstract: "View and control extensiond.",
        discussion: "Exit codes: 0 ok, 1 the command failed, 2 usage error, 3 the daemon is not reachable.",
        subcommands: [Status.self, Start.self, Stop.self, Restart.self, Tail.self, Events.self, Reload.self, Pressure.self, Version.self, Stats.self, Top.self, Enable.self, Disable.self, Pull.self, Refresh.self, Perform.self, Open.self, Defaults.self]
    )

    /// Accepted before the command too (`supervisorctl --socket PATH status`).
    @OptionGroup var global: GlobalOptions

    /// Routes every error to the documented exit codes.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as ClientError {
            printError(error.description)
            Glibc.exit(error.isUnreachable ? 3 : 1)
        } catch let error as CommandFailed {
            printError(error.message)
            Glibc.exit(1)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            printError(fullMessage(for: error))
            Glibc.exit(code == .validationFailure ? 2 : 1)
        }
    }
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The control socket (default: $EXTENSIOND_SOCKET or /run/extensiond/control.sock).")
    var socket: String?

    @Flag(name: .long, help: "Machine-readable output.")
    var json = false

    var client: ControlClient {
        let environment = getenv("EXTENSIOND_SOCKET").map { String(cString: $0) }
        return ControlClient(socketPath: socket ?? environment ?? "/run/extensiond/control.sock")
    }

    /// Calls the daemon and turns a failed response into exit code 1.
    func call(_ request: ControlRequest) throws -> ControlResponse {
        let response = try client.call(request)
        guard response.ok else { throw CommandFailed(message: response.error ?? "the command failed") }
        return response
    }
}

/// The daemon answered that the command failed.
struct CommandFailed: Error {
    var message: String
}

extension ClientError {
    var isUnreachable: Bool {
        if case .unreachable = self { return true }
        return false
    }
}

func printError(_ message: String) {
    let line = "supervisorctl: \(message)\n"
    _ = line.utf8.withContiguousStorageIfAvailable { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
