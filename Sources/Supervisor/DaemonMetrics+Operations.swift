import ControlProtocol
import PrometheusText

extension Daemon {
    /// What the operator watches over time: exits, restarts and memory warnings per
    /// process, reloads, host connections, and refresh budgets in tokens. Counters exist at
    /// 0 from the first scrape (docs/METRICS.md).
    func operationFamilies() -> [MetricFamily] {
        var exits = MetricFamily("extensiond_process_exits_total", .counter, help: "Runs that ended, whatever the reason.")
        var restarts = MetricFamily("extensiond_process_restarts_total", .counter, help: "Restarts scheduled after a host or app exited.")
        var warnings = MetricFamily("extensiond_memory_warnings_total", .counter,
                                    help: "memoryWarning messages sent, by level: high (its memory_high), warn (the tree's pressure.warn).")
        var capacity = MetricFamily("extensiond_refresh_budget_tokens", .gauge, help: "Refresh tokens an extension's budget holds when full (refresh.burst).")
        for process in registry.ordered {
            let labels: MetricLabels = [("kind", process.kind.rawValue), ("name", process.name)]
            let counts = events.processCounts[process.name] ?? [:]
            exits.add(labels, Double(counts[.exit] ?? 0))
            restarts.add(labels, Double(counts[.restart] ?? 0))
            if process.kind == .extension {
                for (level, count) in process.statistics.memoryWarnings.sorted(by: { $0.key < $1.key }) {
                    warnings.add(labels + [("level", level)], Double(count))
                }
            }
            if let budget = extensions.records[process.name]?.budget { capacity.add(labels, Double(budget.burst)) }
        }

        var reloadsTotal = MetricFamily("extensiond_reloads_total", .counter, help: "Config reloads, by result: ok (applied) or failed (the running config kept).")
        reloadsTotal.add([("result", "failed")], Double(reloads.failed))
        reloadsTotal.add([("result", "ok")], Double(reloads.applied))
        var reloadSeconds = MetricFamily("extensiond_reload_duration_seconds", .gauge, help: "How long the last config reload took; absent before the first.")
        if let last = reloads.lastDuration { reloadSeconds.add([], Double(last.components.attoseconds) / 1e18 + Double(last.components.seconds)) }

        var connected = MetricFamily("extensiond_hosts_connected", .gauge, help: "Host connections open now.")
        var accepted = MetricFamily("extensiond_host_connections_total", .counter, help: "Host connections accepted.")
        var dropped = MetricFamily("extensiond_hosts_dropped_total", .counter,
                                   help: "Host connections closed by the daemon, by reason: behind (did not read in time), limit (one too many), refused (not allowed).")
        connected.add([], Double(hosts?.connections.count ?? 0))
        accepted.add([], Double(hosts?.accepted ?? 0))
        for (reason, count) in (hosts?.dropped ?? ["behind": 0, "limit": 0, "refused": 0]).sorted(by: { $0.key < $1.key }) {
            dropped.add([("reason", reason)], Double(count))
        }
        return [exits, restarts, warnings, capacity, reloadsTotal, reloadSeconds, connected, accepted, dropped]
    }
}
