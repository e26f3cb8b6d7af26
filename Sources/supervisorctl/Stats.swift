import ArgumentParser
import ControlProtocol

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Memory, launches, latencies, pulls, results, kills and budget per process; the daemon's own figures."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Names or patterns to show (default: all).", completion: NameCompletion.names) var names: [String] = []

    func run() throws {
        let response = try global.call(.stats(NameSelection(names)))
        global.show(response) { $0.stats.map(StatsFormat.text) }
    }
}

/// How `stats` and `top` show a report: a table with a row per process, then the daemon.
enum StatsFormat {
    static let header = [
        "NAME", "KIND", "RSS/PEAK", "MEMORY/PEAK", "LAUNCHES", "LAUNCH P50/P99", "UPDATE P50/P90/P99/MAX",
        "PULLS CACHED/COALESCED/UPDATED", "NEWDATA/NODATA/FAILED", "KILLS", "BUDGET", "NEXT REFRESH",
    ]

    static func text(_ report: StatsReport) -> String {
        Table.render(header: header, rows: report.processes.map(row)) + "\n" + daemonLine(report.daemon)
    }

    /// The parts of ``text(_:)``, for `top` to cut to the terminal.
    static func rows(_ report: StatsReport) -> (header: [String], rows: [[String]], footer: String) {
        (header, report.processes.map(row), daemonLine(report.daemon))
    }

    static func row(_ process: ProcessStats) -> [String] {
        [
            process.name,
            process.kind.rawValue,
            pair(process.rssBytes, process.peakRSSBytes),
            pair(process.memoryCurrentBytes, process.memoryPeakBytes),
            "\(process.launches)",
            process.launchLatencyUs.map { latencies([$0.p50, $0.p99]) } ?? "-",
            process.updateLatencyUs.map { latencies([$0.p50, $0.p90, $0.p99, $0.max]) } ?? "-",
            "\(process.pullsCached)/\(process.pullsCoalesced)/\(process.pullsUpdated)",
            "\(process.resultsNewData)/\(process.resultsNoData)/\(process.resultsFailed)",
            process.kills.isEmpty ? "-" : process.kills.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " "),
            process.budgetLeft.map(String.init) ?? "-",
            process.nextRefreshInMs.map { "in " + Format.milliseconds(max(0, $0)) } ?? "-",
        ]
    }

    /// `daemon: RSS 3.1M (anonymous 1.2M), CPU 120ms user + 40ms system, cgroup v1, pressure none`
    static func daemonLine(_ daemon: DaemonStats) -> String {
        "daemon: RSS \(Format.bytes(daemon.rssBytes)) (anonymous \(Format.bytes(daemon.anonymousBytes))), "
            + "CPU \(Format.milliseconds(daemon.cpuUserMs)) user + \(Format.milliseconds(daemon.cpuSystemMs)) system, "
            + "cgroup \(daemon.cgroupBackend), pressure \(daemon.pressureLevel)"
    }

    /// `1.2M/3M`, `-` for an unknown figure.
    private static func pair(_ now: UInt64?, _ peak: UInt64?) -> String {
        guard now != nil || peak != nil else { return "-" }
        return (now.map(Format.bytes) ?? "-") + "/" + (peak.map(Format.bytes) ?? "-")
    }

    private static func latencies(_ values: [UInt64]) -> String {
        values.map { Format.microseconds(Int64(clamping: $0)) }.joined(separator: "/")
    }
}
