/// `supervisorctl`: view and control a running extensiond, one command per invocation or
/// in an interactive shell.
import ArgumentParser
import ControlProtocol
import Glibc

@main
struct Supervisorctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "supervisorctl",
        abstract: "View and control extensiond.",
        discussion: """
            Without a command (or with -i), opens a shell that reads commands one per line. \
            Names accept globs (com.example.*) and APP:* (an app and its extensions). \
            Exit codes: 0 ok, 1 the command failed, 2 usage error, 3 a process is not running (status, pid), \
            4 an unknown name (status) or refused for the caller's role, 7 the daemon is not running.
            """,
        version: extensiondVersion,
        // Each command sets its commandName: otherwise ArgumentParser derives it with
        // String(describing:), whose dynamic casts scan every protocol conformance in the
        // binary at start — about a quarter of a short command's CPU.
        subcommands: [
            Status.self, Start.self, Stop.self, Restart.self, Signal.self, Pid.self, Avail.self, Clear.self, Purge.self,
            Tail.self, Maintail.self, Events.self, Reread.self, Update.self, Reload.self, Pressure.self, Version.self,
            Stats.self, Top.self, Enable.self, Disable.self, Pull.self, Refresh.self, Perform.self, Open.self, DefaultsCommand.self,
        ]
    )

    /// Accepted before the command too (`supervisorctl --socket PATH status`).
    @OptionGroup var global: GlobalOptions

    @Flag(name: .shortAndLong, help: "Open the shell even when a command is given (the command runs first).")
    var interactive = false

    /// Without a command: the shell.
    func run() throws {
        Glibc.exit(Shell(globalArguments: global.arguments).run().rawValue)
    }

    /// `-i` opens the shell after the command, if any; otherwise runs the command.
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let flag = arguments.firstIndex(where: { $0 == "-i" || $0 == "--interactive" }) {
            arguments.remove(at: flag)
            let (global, command) = GlobalOptions.split(arguments)
            Glibc.exit(Shell(globalArguments: global, first: command).run().rawValue)
        }
        Glibc.exit(execute(arguments).rawValue)
    }

    /// Parses and runs one command line (the command line or a line of the shell),
    /// printing what went wrong; returns the exit status.
    static func execute(_ arguments: [String]) -> CLIExitCode {
        do {
            let expanded = ShorthandArguments.expand(arguments)
            var command: any ParsableCommand = try PlainStatus.command(expanded) ?? parseDirectly(expanded) ?? parseAsRoot(expanded)
            try command.run()
            return .success
        } catch let error as ClientError {
            printError(error.description)
            return error.exitStatus
        } catch let error as CommandFailed {
            if !error.message.isEmpty { printError(error.message) }
            return error.status
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                return .success
            }
            printError(fullMessage(for: error))
            return code == .validationFailure ? .usage : CLIExitCode(rawValue: code.rawValue) ?? .failed
        }
    }
}

extension Supervisorctl {
    /// An ordinary command line parsed by its command alone. Parsing from the root first
    /// builds every command's arguments to look for a completion-script request: a quarter
    /// of `status`'s CPU. Anything else (help, version, completion scripts, a command with
    /// subcommands, a mistake) goes through the root, which words usage and errors for the
    /// whole tool.
    static func parseDirectly(_ arguments: [String]) -> (any ParsableCommand)? {
        let (global, line) = GlobalOptions.split(arguments)
        guard let name = line.first,
            let type = configuration.subcommands.first(where: { $0._commandName == name }),
            type.configuration.subcommands.isEmpty,
            !arguments.contains(where: needsTheRoot)
        else { return nil }
        return try? type.parse(Array(line.dropFirst()) + global)
    }

    static func needsTheRoot(_ argument: String) -> Bool {
        ["-h", "--help", "help", "--version", "-i", "--interactive"].contains(argument)
            || argument.hasPrefix("--generate-completion") || argument.hasPrefix("--experimental")
    }
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The control socket (default: $EXTENSIOND_SOCKET or /run/extensiond/control.sock).")
    var socket: String?

    @Flag(name: .long, help: "Print the daemon's answers as JSON, one per line, every key present (docs/CLI.md).")
    var json = false

    var socketPath: String { Self.socketPath(socket) }

    /// `explicit` (a `--socket`), else `$EXTENSIOND_SOCKET`, else the default.
    static func socketPath(_ explicit: String?) -> String {
        explicit ?? getenv("EXTENSIOND_SOCKET").map { String(cString: $0) } ?? "/run/extensiond/control.sock"
    }

    var client: ControlClient { ControlClient(socketPath: socketPath) }

    /// These options as arguments, for the commands of a shell.
    var arguments: [String] {
        (socket.map { ["--socket", $0] } ?? []) + (json ? ["--json"] : [])
    }

    /// Splits a command line into the global options in front and the command after them.
    static func split(_ arguments: [String]) -> (global: [String], command: [String]) {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            switch arguments[index] {
            case "--json": index += 1
            case "--socket": index = min(index + 2, arguments.endIndex)
            case let argument where argument.hasPrefix("--socket="): index += 1
            default: return (Array(arguments[..<index]), Array(arguments[index...]))
            }
        }
        return (arguments, [])
    }

    /// Sends `request`; a failed answer is printed (as JSON with `--json`, its message
    /// on stdout otherwise) and thrown as ``CommandFailed``.
    func call(_ request: ControlRequest) throws -> ControlResponse {
        try checked(try client.call(request))
    }

    /// `response` when it succeeded; otherwise prints it and throws ``CommandFailed``.
    func checked(_ response: ControlResponse) throws -> ControlResponse {
        guard !response.ok else { return response }
        if json {
            print(JSONLine.line(response))
        } else if let message = response.message {
            print(message)
        }
        throw CommandFailed(message: response.error ?? "the command failed", status: response.code?.exitStatus ?? .failed, code: response.code)
    }

    /// Prints `response`: as JSON with `--json`, else `text` (nothing when it is nil).
    func show(_ response: ControlResponse, _ text: (ControlResponse) -> String?) {
        if json {
            print(JSONLine.line(response))
        } else if let text = text(response) {
            print(text)
        }
    }

    /// Sends a request that may be answered by a stream (`tail -f`, `events -f`: `follows`)
    /// and shows each answer as it comes, even into a pipe.
    func stream(_ request: ControlRequest, follows: Bool, _ text: @escaping (ControlResponse) -> String?) throws {
        try client.send(request) { response in
            show(try checked(response), text)
            fflush(nil)
            return follows && response.done != true
        }
    }
}

func printError(_ message: String) {
    fflush(nil)
    let line = "supervisorctl: \(message)\n"
    _ = line.utf8.withContiguousStorageIfAvailable { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
