import DaemonSupport
import PrometheusText

/// What `/metrics` reads from the rooms this one does not know: reloads (the daemon's)
/// and host connections (`host.sock`'s).
package struct OperationFigures {
    package var reloads: ReloadStatistics
    package var hostsConnected: Int
    package var hostsAccepted: Int
    /// By reason: `behind`, `limit`, `refused`.
    package var hostsDropped: [String: Int]

    package init(reloads: ReloadStatistics, hostsConnected: Int, hostsAccepted: Int, hostsDropped: [String: Int]) {
        self.reloads = reloads
        self.hostsConnected = hostsConnected
        self.hostsAccepted = hostsAccepted
        self.hostsDropped = hostsDropped
    }
}

extension DaemonMetrics {
    /// What the operator watches over time: exits, restarts and memory warnings per
    /// process, reloads, host connections, and refresh budgets in tokens. Counters exist at
    /// 0 from the first scrape (docs/METRICS.md).
    func operationFamilies() -> [MetricFamily] {
        var exits = MetricFamily("extensiond_process_exits_total", .counter, help: "Runs that ended, whatever the reason.")
        var restarts = MetricFamily("extensiond_process_restarts_total", .counter, help: "Restarts scheduled after a host or app exited.")
        var warnings = MetricFamily(
            "extensiond_memory_warnings_total", .counter,
            help: "memoryWarning messages sent, by level: high (its memory_high), warn (the tree's pressure.warn).")
        var capacity = MetricFamily("extensiond_refresh_budget_tokens", .gauge, help: "Refresh tokens an extension's budget holds when full (refresh.burst).")
        for process in registry.ordered {
            let labels: MetricLabels = [("kind", process.kind.rawValue), ("name", process.name)]
            let counts = events.processCounts[process.name] ?? [:]
            exits.add(labels, Double(counts[.exit] ?? 0))
            restarts.add(labels, Double(counts[.restart] ?? 0))
            if process.kind == .extension {
                let sent = process.statistics.memoryWarnings
                warnings.add(labels + [("level", "high")], Double(sent.high))
                warnings.add(labels + [("level", "warn")], Double(sent.warn))
            }
            if let budget = extensions.records[process.name]?.budget { capacity.add(labels, Double(budget.burst)) }
        }

        let figures = operations()
        var reloads = MetricFamily("extensiond_reloads_total", .counter, help: "Config reloads, by result: ok (applied) or failed (the running config kept).")
        reloads.add([("result", "failed")], Double(figures.reloads.failed))
        reloads.add([("result", "ok")], Double(figures.reloads.applied))
        var reloadSeconds = MetricFamily("extensiond_reload_duration_seconds", .gauge, help: "How long the last config reload took; absent before the first.")
        if let last = figures.reloads.lastDuration {
            reloadSeconds.add([], Double(last.components.seconds) + Double(last.components.attoseconds) / 1e18)
        }

        var connected = MetricFamily("extensiond_hosts_connected", .gauge, help: "Host connections open now.")
        var accepted = MetricFamily("extensiond_host_connections_total", .counter, help: "Host connections accepted.")
        var dropped = MetricFamily(
            "extensiond_hosts_dropped_total", .counter,
            help: "Host connections closed by the daemon, by reason: behind (did not read in time), limit (one too many), refused (not allowed).")
        connected.add([], Double(figures.hostsConnected))
        accepted.add([], Double(figures.hostsAccepted))
        for (reason, count) in figures.hostsDropped.sorted(by: { $0.key < $1.key }) {
            dropped.add([("reason", reason)], Double(count))
        }
        return [exits, restarts, warnings, capacity, reloads, reloadSeconds, connected, accepted, dropped]
    }
}
