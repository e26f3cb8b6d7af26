import ArgumentParser
import ControlProtocol
import Glibc

struct Tail: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A process's captured stdout and stderr.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .shortAndLong, help: "Keep printing new output.") var follow = false
    @Option(name: .short, help: "How many lines to show first.") var n: Int = 20
    @Argument(help: "A host, app or extension.") var name: String

    func validate() throws {
        guard n >= 0 else { throw ValidationError("-n must be 0 or more") }
    }

    func run() throws {
        let request = ControlRequest(command: .tail, names: [name], options: ["lines": "\(n)", "follow": "\(follow)"])
        try global.client.send(request) { response in
            guard response.ok else { throw CommandFailed(message: response.error ?? "tail failed") }
            for line in response.lines ?? [] { print(line) }
            // Following: show each response now, even into a pipe.
            fflush(nil)
            return response.done != true
        }
    }
}

struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Recent events: launches, exits, kills (with their timings), reloads.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .shortAndLong, help: "Keep printing new events.") var follow = false
    @Option(name: .short, help: "How many recent events to show first.") var n: Int = 50

    func validate() throws {
        guard n >= 0 else { throw ValidationError("-n must be 0 or more") }
    }

    func run() throws {
        let request = ControlRequest(command: .events, options: ["count": "\(n)", "follow": "\(follow)"])
        try global.client.send(request) { response in
            guard response.ok else { throw CommandFailed(message: response.error ?? "events failed") }
            for event in response.events ?? [] {
                print(global.json ? JSONText.line(event) : EventFormat.line(event))
            }
            // Following: show each response now, even into a pipe.
            fflush(nil)
            return response.done != true
        }
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
