import ControlProtocol

/// The Prometheus text exposition of what `stats` and `pressure` report.
enum MetricsText {
    static func render(_ stats: StatsReport, _ pressure: PressureReport) -> String {
        var text = MetricsWriter()
        for process in stats.processes {
            let labels = ["name": process.name, "kind": process.kind.rawValue]
            text.gauge("extensiond_process_rss_bytes", labels, process.rssBytes)
            text.gauge("extensiond_process_memory_bytes", labels, process.memoryCurrentBytes)
            text.gauge("extensiond_process_memory_peak_bytes", labels, process.memoryPeakBytes)
            text.counter("extensiond_process_launches_total", labels, UInt64(process.launches))
            for (reason, count) in process.kills.sorted(by: { $0.key < $1.key }) {
                text.counter("extensiond_process_kills_total", labels.merging(["reason": reason]) { $1 }, UInt64(count))
            }
            guard process.kind == .extension else { continue }
            for (delivery, count) in [("cached", process.pullsCached), ("coalesced", process.pullsCoalesced), ("updated", process.pullsUpdated)] {
                text.counter("extensiond_pulls_total", labels.merging(["delivery": delivery]) { $1 }, UInt64(count))
            }
            for (result, count) in [("newData", process.resultsNewData), ("noData", process.resultsNoData), ("failed", process.resultsFailed)] {
                text.counter("extensiond_update_results_total", labels.merging(["result": result]) { $1 }, UInt64(count))
            }
            if let latency = process.updateLatencyUs {
                for (quantile, value) in [("0.5", latency.p50), ("0.9", latency.p90), ("0.99", latency.p99)] {
                    text.gauge("extensiond_update_latency_microseconds", labels.merging(["quantile": quantile]) { $1 }, value)
                }
            }
            text.gauge("extensiond_refresh_budget_left", labels, process.budgetLeft.map(UInt64.init))
        }
        let daemon = stats.daemon
        text.gauge("extensiond_daemon_rss_bytes", [:], daemon.rssBytes)
        text.gauge("extensiond_daemon_anonymous_bytes", [:], daemon.anonymousBytes)
        text.counter("extensiond_daemon_cpu_milliseconds_total", ["mode": "user"], UInt64(max(0, daemon.cpuUserMs)))
        text.counter("extensiond_daemon_cpu_milliseconds_total", ["mode": "system"], UInt64(max(0, daemon.cpuSystemMs)))
        text.gauge("extensiond_tree_memory_bytes", [:], pressure.usageBytes)
        text.gauge("extensiond_memory_budget_bytes", [:], pressure.budgetBytes)
        text.gauge("extensiond_pressure_level", [:], ["none": 0, "low": 1, "critical": 2][pressure.level].map(UInt64.init))
        return text.output
    }
}

/// Lines of the exposition format, each metric's TYPE written once.
private struct MetricsWriter {
    private(set) var output = ""
    private var typed: Set<String> = []

    mutating func gauge(_ name: String, _ labels: [String: String], _ value: UInt64?) {
        line(name, "gauge", labels, value)
    }

    mutating func counter(_ name: String, _ labels: [String: String], _ value: UInt64?) {
        line(name, "counter", labels, value)
    }

    private mutating func line(_ name: String, _ type: String, _ labels: [String: String], _ value: UInt64?) {
        guard let value else { return }
        if typed.insert(name).inserted { output += "# TYPE \(name) \(type)\n" }
        let rendered = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(Self.escape($0.value))\"" }
        output += name + (rendered.isEmpty ? "" : "{" + rendered.joined(separator: ",") + "}") + " \(value)\n"
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
