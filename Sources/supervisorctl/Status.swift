import ArgumentParser
import ControlProtocol

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "One line per host, app and extension.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Names to show (default: all).")
    var names: [String] = []

    func run() throws {
        let response = try global.call(ControlRequest(command: .status, names: names))
        let entries = response.status ?? []
        if global.json {
            print(JSONText.line(entries))
            return
        }
        print(Table.render(header: StatusColumns.header, rows: entries.map(StatusColumns.row)))
    }
}

/// How `status` shows one process.
enum StatusColumns {
    static let header = ["NAME", "KIND", "STATE", "PID", "UPTIME", "RSS", "MEMORY/LIMIT", "LAST UPDATE", "P50/P99"]

    static func row(_ entry: ProcessStatus) -> [String] {
        let memory = entry.memoryCurrentBytes.map { Format.bytes($0) + "/" + (entry.memoryLimitBytes.map(Format.bytes) ?? "max") } ?? "-"
        let update = entry.lastResult.map { result in result + (entry.lastUpdateAgeMs.map { " " + Format.milliseconds($0) + " ago" } ?? "") } ?? "-"
        let latency = entry.updateLatencyP50Us.map { p50 in
            Format.microseconds(p50) + "/" + (entry.updateLatencyP99Us.map(Format.microseconds) ?? "-")
        } ?? "-"
        var state = entry.state
        if let error = entry.error { state += " (\(error))" }
        return [
            entry.name, entry.kind.rawValue, state, entry.pid.map(String.init) ?? "-",
            entry.uptimeMs.map(Format.milliseconds) ?? "-", entry.rssBytes.map(Format.bytes) ?? "-",
            memory, update, latency,
        ]
    }
}
