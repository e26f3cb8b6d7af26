import ArgumentParser
import ControlProtocol

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "One line per host, app and extension.",
        discussion: "Exits 3 when a process named (with no names: one that autostarts) is stopped, exited or fatal, 4 when a name matches nothing."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Names or patterns to show (default: all).", completion: NameCompletion.names)
    var names: [String] = []

    func run() throws {
        let response: ControlResponse
        do {
            response = try global.call(.status(NameSelection(names)))
        } catch var error as CommandFailed where error.code == .unknownName {
            error.status = .unknownOrRefused
            throw error
        }
        let entries = response.status ?? []
        global.show(response) { _ in Table.render(header: StatusColumns.header, rows: entries.map(StatusColumns.row)) }
        let concerned = names.isEmpty ? entries.filter(\.autostart) : entries
        if concerned.contains(where: { StatusColumns.notRunningStates.contains($0.state) }) {
            throw CommandFailed(message: "", status: .notRunning)
        }
    }
}

/// How `status` shows one process.
enum StatusColumns {
    static let header = ["NAME", "KIND", "STATE", "PID", "UPTIME", "RSS", "MEMORY/LIMIT", "LAST UPDATE", "P50/P99"]

    /// supervisord's STOPPED_STATES: `status` exits 3 for these.
    static let notRunningStates: Set = ["stopped", "exited", "fatal"]

    static func row(_ entry: ProcessStatus) -> [String] {
        let memory = entry.memoryCurrentBytes.map { Format.bytes($0) + "/" + (entry.memoryLimitBytes.map(Format.bytes) ?? "max") } ?? "-"
        let update = entry.lastResult.map { result in result + (entry.lastUpdateAgeMs.map { " " + Format.milliseconds($0) + " ago" } ?? "") } ?? "-"
        let latency =
            entry.updateLatencyP50Us.map { p50 in
                Format.microseconds(p50) + "/" + (entry.updateLatencyP99Us.map(Format.microseconds) ?? "-")
            } ?? "-"
        var state = entry.state
        if let visible = entry.visible { state += visible ? ", visible" : ", hidden" }
        if let error = entry.error { state += " (\(error))" }
        return [
            entry.name, entry.kind.rawValue, state, entry.pid.map(String.init) ?? "-",
            entry.uptimeMs.map(Format.milliseconds) ?? "-", entry.rssBytes.map(Format.bytes) ?? "-",
            memory, update, latency,
        ]
    }
}
