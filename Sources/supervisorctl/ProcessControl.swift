import ArgumentParser
import ControlProtocol
import Glibc

/// Commands that act on named processes and print the daemon's lines (`w1: started`,
/// `w2: ERROR (already started)`): `start`, `stop`, `restart`, `clear`, `enable`,
/// `disable` and `refresh`. One type each, one shape.
protocol ProcessControlCommand: ParsableCommand {
    static func request(_ names: NameSelection) -> ControlRequest
    var global: GlobalOptions { get }
    var names: [String] { get }
}

extension ProcessControlCommand {
    func run() throws {
        let response = try global.call(Self.request(NameSelection(names)))
        global.show(response) { $0.message }
    }
}

struct Start: ProcessControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start hosts, apps or extensions (clears fatal).",
        discussion: "A process named exactly that is already running: ERROR (already started), exit 1; all and patterns skip it."
    )
    static func request(_ names: NameSelection) -> ControlRequest { .start(names) }
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Names or patterns, or all.", completion: NameCompletion.names) var names: [String]
}

struct Stop: ProcessControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop gracefully; the whole cgroup is killed after the grace period.",
        discussion: "A process named exactly that is not running: ERROR (not running), exit 1; all and patterns skip it."
    )
    static func request(_ names: NameSelection) -> ControlRequest { .stop(names) }
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Names or patterns, or all.", completion: NameCompletion.names) var names: [String]
}

struct Restart: ProcessControlCommand {
    static let configuration = CommandConfiguration(commandName: "restart", abstract: "Stop, then start.")
    static func request(_ names: NameSelection) -> ControlRequest { .restart(names) }
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Names or patterns, or all.", completion: NameCompletion.names) var names: [String]
}

struct Clear: ProcessControlCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Empty the captured output of processes.")
    static func request(_ names: NameSelection) -> ControlRequest { .clear(names) }
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Names or patterns, or all.", completion: NameCompletion.names) var names: [String]
}

struct Purge: ProcessControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge", abstract: "Remove at once the data and ids kept of apps removed from the config.")
    static func request(_ names: NameSelection) -> ControlRequest { .purge(names) }
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Ids of removed apps.") var names: [String]
}

struct Signal: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signal",
        abstract: "Send a signal to the main process of running processes.",
        discussion: "SIG is a name (HUP, SIGHUP, USR1…) or a number."
    )
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The signal.", valueName: "sig")) var signal: String
    @Argument(help: "Names or patterns, or all.", completion: NameCompletion.names) var names: [String]

    func validate() throws {
        try ControlRequest.signal(SignalRequest(signal: signal, names: names)).checkedForUsage()
    }

    func run() throws {
        let response = try global.call(.signal(SignalRequest(signal: signal, names: names)))
        global.show(response) { $0.message }
    }
}

struct Pid: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pid",
        abstract: "The pid of a process (0 and exit 3 when it is not running), or of the daemon.",
        discussion: "pid all prints the pid of every process, one a line in status order (0 when not running)."
    )
    @OptionGroup var global: GlobalOptions
    @Argument(help: "A host, app or extension, or all (default: the daemon).", completion: NameCompletion.names) var name: String?

    func run() throws {
        if name == "all" {
            let response = try global.call(.status(NameSelection(["all"])))
            global.show(response) { ($0.status ?? []).map { "\($0.pid ?? 0)" }.joined(separator: "\n") }
            return
        }
        let response = try global.call(.pid(PidRequest(name: name)))
        global.show(response) { "\($0.pid ?? 0)" }
        if response.pid == nil { throw CommandFailed(message: "", status: .notRunning) }
    }
}

struct Avail: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avail",
        abstract: "Every configured name: in use (the running config) or avail (only in the config file, until update)."
    )
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let response = try global.call(.avail)
        global.show(response) { response in
            Table.render(
                header: ["NAME", "KIND", "CONFIG", "AUTOSTART"],
                rows: (response.available ?? []).map {
                    [$0.name, $0.kind.rawValue, $0.inUse ? "in use" : "avail", $0.autostart ? "auto" : "manual"]
                })
        }
    }
}

extension ControlRequest {
    /// The protocol's own checks, as a usage error before anything is sent.
    func checkedForUsage() throws {
        do {
            try validate()
        } catch {
            throw ValidationError(error.description)
        }
    }
}
