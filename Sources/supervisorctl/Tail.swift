import ArgumentParser
import ControlProtocol

struct Tail: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "A process's captured output: stdout and stderr interleaved, or one of them.",
        discussion: "tail -100 NAME is tail -n 100 NAME."
    )

    @OptionGroup var global: GlobalOptions
    @Flag(name: .shortAndLong, help: "Keep printing new output.") var follow = false
    @Option(name: .short, help: "How many lines to show first (1...\(ControlLimits.tailLines.upperBound)).") var n: Int = 20
    @Argument(help: "A host, app or extension.", completion: NameCompletion.names) var name: String
    @Argument(help: "stdout or stderr (default: both).") var stream: OutputStream?

    private var request: ControlRequest { .tail(TailRequest(name: name, lines: n, stream: stream, follow: follow)) }

    func validate() throws {
        try request.checkedForUsage()
    }

    func run() throws {
        try global.stream(request, follows: follow) { ($0.lines ?? []).joinedOrNil() }
    }
}

extension OutputStream: ExpressibleByArgument {}

struct Maintail: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "maintail", abstract: "The daemon's own log: its last lines, and new ones with -f.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .shortAndLong, help: "Keep printing new lines.") var follow = false
    @Option(name: .short, help: "How many lines to show first (0...\(ControlLimits.logLines.upperBound)).") var n: Int = 20

    private var request: ControlRequest { .maintail(LogRequest(lines: n, follow: follow)) }

    func validate() throws {
        try request.checkedForUsage()
    }

    func run() throws {
        try global.stream(request, follows: follow) { ($0.lines ?? []).joinedOrNil() }
    }
}

struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "events", abstract: "Recent events: launches, exits, kills (with their timings), reloads.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .shortAndLong, help: "Keep printing new events.") var follow = false
    @Option(name: .short, help: "How many recent events to show first (0...\(ControlLimits.logLines.upperBound)).") var n: Int = 50

    private var request: ControlRequest { .events(LogRequest(lines: n, follow: follow)) }

    func validate() throws {
        try request.checkedForUsage()
    }

    func run() throws {
        try global.stream(request, follows: follow) { ($0.events ?? []).map(EventFormat.line).joinedOrNil() }
    }
}

extension [String] {
    /// The lines, or nil when there are none (nothing to print, not an empty line).
    func joinedOrNil() -> String? {
        isEmpty ? nil : joined(separator: "\n")
    }
}

/// How `events` shows one event.
enum EventFormat {
    static func line(_ event: EventRecord) -> String {
        var parts = [Format.timestamp(milliseconds: event.timeMs), event.kind.rawValue]
        if let name = event.name { parts.append(name) }
        if let reason = event.reason { parts.append("[\(reason)]") }
        parts.append(event.message)
        if let kill = event.kill {
            let decision = kill.decisionUs - kill.triggerUs
            let signal = kill.signalUs - kill.decisionUs
            let empty = kill.emptyUs.map { "\($0 - kill.signalUs)µs" } ?? "not empty"
            parts.append("(band \(kill.band); trigger→decision \(decision)µs, →signal \(signal)µs, →empty \(empty))")
        }
        return parts.joined(separator: " ")
    }
}
