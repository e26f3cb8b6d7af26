import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensionCoordination
import ExtensiondPolicy
import LinuxProcess
import Pressure
import Processes
import PrometheusText

/// The figures of the running daemon, as `/metrics` families.
package final class DaemonMetrics {
    let loop: EventLoop
    let registry: ProcessRegistry
    let cgroups: CgroupRoot
    let extensions: ExtensionCoordinator
    let pressure: MemoryPressure
    let events: EventLog
    let operations: () -> OperationFigures

    package init(
        loop: EventLoop, registry: ProcessRegistry, cgroups: CgroupRoot, extensions: ExtensionCoordinator, pressure: MemoryPressure,
        events: EventLog, operations: @escaping () -> OperationFigures
    ) {
        self.loop = loop
        self.registry = registry
        self.cgroups = cgroups
        self.extensions = extensions
        self.pressure = pressure
        self.events = events
        self.operations = operations
    }

    /// Everything `/metrics` exposes, read now. Every name is documented in docs/METRICS.md.
    package func metricFamilies() -> [MetricFamily] {
        var build = MetricFamily("extensiond_build_info", .gauge, help: "Always 1; the labels name the daemon's version and cgroup backend.")
        build.add([("version", extensiondVersion), ("backend", cgroups.tree.version.rawValue)], 1)
        return [build] + processFamilies() + operationFamilies() + pressureFamilies(pressure.report()) + Self.ownProcessFamilies()
    }

    /// Per supervised process, labelled `name` and `kind`.
    private func processFamilies() -> [MetricFamily] {
        var state = MetricFamily("extensiond_process_state", .gauge, help: "1 for the state the process is in, 0 for the others.")
        var rss = MetricFamily("extensiond_process_rss_bytes", .gauge, help: "Resident memory of the main process of the current run.")
        var memory = MetricFamily("extensiond_process_memory_bytes", .gauge, help: "Memory charged to the process's cgroup now.")
        var peak = MetricFamily("extensiond_process_memory_peak_bytes", .gauge, help: "Highest memory charged to the process's cgroup, over all runs.")
        var limit = MetricFamily("extensiond_process_memory_limit_bytes", .gauge, help: "The configured memory_max; absent when unlimited.")
        var launches = MetricFamily("extensiond_process_launches_total", .counter, help: "Processes spawned for it.")
        var suspensions = MetricFamily("extensiond_process_suspensions_total", .counter, help: "Times an idle extension was frozen (suspend_after).")
        var kills = MetricFamily("extensiond_process_kills_total", .counter, help: "Runs killed by the daemon or the kernel, by reason.")
        var dropped = MetricFamily(
            "extensiond_process_output_dropped_bytes_total", .counter,
            help: "Output bytes not captured: past the capture rate, or not writable.")
        var launchSeconds = MetricFamily(
            "extensiond_launch_duration_seconds", .histogram,
            help: "Spawn until running (hosts, apps) or until ready (extensions).")
        var pulls = MetricFamily("extensiond_pulls_total", .counter, help: "Host pulls of an extension, by how they were answered.")
        var pullSeconds = MetricFamily("extensiond_pull_duration_seconds", .histogram, help: "A host's pull until its snapshot was sent.")
        var results = MetricFamily("extensiond_update_results_total", .counter, help: "Update results of an extension, by result.")
        var updateSeconds = MetricFamily("extensiond_update_duration_seconds", .histogram, help: "An update sent to an extension until its result.")
        var budget = MetricFamily("extensiond_refresh_budget_left", .gauge, help: "Refresh tokens an extension has left now.")

        let now = loop.now
        for process in registry.ordered {
            let labels: MetricLabels = [("kind", process.kind.rawValue), ("name", process.name)]
            for candidate in ProcessState.allCases {
                state.add(labels + [("state", candidate.rawValue)], candidate == process.state ? 1 : 0)
            }
            let status = process.status(now: now)
            if let bytes = status.rssBytes { rss.add(labels, Double(bytes)) }
            if let bytes = status.memoryCurrentBytes { memory.add(labels, Double(bytes)) }
            let peakBytes = max(process.statistics.peakMemoryBytes, (try? process.run?.group.memoryPeak()) ?? 0)
            peak.add(labels, Double(peakBytes))
            if let bytes = status.memoryLimitBytes { limit.add(labels, Double(bytes)) }
            launches.add(labels, Double(process.statistics.launches))
            dropped.add(labels, Double(process.output.droppedBytes))
            if process.kind == .extension { suspensions.add(labels, Double(process.statistics.suspensions)) }
            for reason in Set(StopReason.countedKills).union(process.statistics.kills.keys).sorted(by: { $0.rawValue < $1.rawValue }) {
                kills.add(labels + [("reason", reason.rawValue)], Double(process.statistics.kills[reason] ?? 0))
            }
            launchSeconds.add(labels, process.statistics.launchLatency.exposition)

            guard let record = extensions.records[process.name] else { continue }
            let counters = record.statistics
            for (delivery, count) in [("cached", counters.pullsCached), ("coalesced", counters.pullsCoalesced), ("updated", counters.pullsUpdated)] {
                pulls.add(labels + [("delivery", delivery)], Double(count))
            }
            for (result, count) in [("newData", counters.resultsNewData), ("noData", counters.resultsNoData), ("failed", counters.resultsFailed)] {
                results.add(labels + [("result", result)], Double(count))
            }
            pullSeconds.add(labels, counters.pullLatency.exposition)
            updateSeconds.add(labels, counters.updateLatency?.exposition ?? LatencyDistribution.emptyExposition)
            if let tokens = record.budget?.tokens(at: now.policyInstant) { budget.add(labels, Double(tokens)) }
        }
        return [state, rss, memory, peak, limit, launches, suspensions, kills, dropped, launchSeconds, pulls, pullSeconds, results, updateSeconds, budget]
    }

    /// The memory budget, its watermarks, the level and PSI stall time.
    private func pressureFamilies(_ report: PressureReport) -> [MetricFamily] {
        var usage = MetricFamily("extensiond_tree_memory_bytes", .gauge, help: "Working set of the whole cgroup tree (usage less unmapped page cache).")
        usage.add([], Double(report.usageBytes))
        var budget = MetricFamily("extensiond_memory_budget_bytes", .gauge, help: "supervisor.memory_budget; absent when none is configured.")
        var low = MetricFamily("extensiond_memory_low_watermark_bytes", .gauge, help: "Usage past which idle extensions are killed (pressure.low).")
        var critical = MetricFamily("extensiond_memory_critical_watermark_bytes", .gauge, help: "Usage past which any extension is killed (pressure.critical).")
        if let bytes = report.budgetBytes { budget.add([], Double(bytes)) }
        if let bytes = report.lowBytes { low.add([], Double(bytes)) }
        if let bytes = report.criticalBytes { critical.add([], Double(bytes)) }
        var level = MetricFamily("extensiond_pressure_level", .gauge, help: "Memory pressure as the daemon sees it: 0 none, 1 low, 2 critical.")
        level.add([], Double(["none": 0, "low": 1, "critical": 2][report.level] ?? 0))
        var waiting = MetricFamily(
            "extensiond_pressure_memory_waiting_seconds_total", .counter,
            help: "PSI 'some' total: time at least one task stalled on memory, system-wide or in the daemon's subtree.")
        var stalled = MetricFamily(
            "extensiond_pressure_memory_stalled_seconds_total", .counter,
            help: "PSI 'full' total: time all non-idle tasks stalled on memory, system-wide or in the daemon's subtree.")
        for (scope, path) in pressure.stallFiles {
            guard let totals = PressureStallAverages.read(path)?.totalMicroseconds else { continue }
            if let some = totals["some"] { waiting.add([("scope", scope)], Double(some) / 1_000_000) }
            if let full = totals["full"] { stalled.add([("scope", scope)], Double(full) / 1_000_000) }
        }
        return [usage, budget, low, critical, level, waiting, stalled]
    }

    /// The daemon itself, under the names every Prometheus client library uses.
    private static func ownProcessFamilies() -> [MetricFamily] {
        var cpu = MetricFamily("process_cpu_seconds_total", .counter, help: "Total user and system CPU time spent in seconds.")
        cpu.add([], Double(ProcessCPUTime.current().total.wholeMicroseconds) / 1_000_000)
        var resident = MetricFamily("process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.")
        if let memory = try? ProcessMemory.read() { resident.add([], Double(memory.residentBytes)) }
        var virtual = MetricFamily("process_virtual_memory_bytes", .gauge, help: "Virtual memory size in bytes.")
        var start = MetricFamily("process_start_time_seconds", .gauge, help: "Start time of the process since unix epoch in seconds.")
        var open = MetricFamily("process_open_fds", .gauge, help: "Number of open file descriptors.")
        var limit = MetricFamily("process_max_fds", .gauge, help: "Maximum number of open file descriptors.")
        if let vitals = try? ProcessVitals.current() {
            virtual.add([], Double(vitals.virtualBytes))
            start.add([], vitals.startTimeSeconds)
            open.add([], Double(vitals.openDescriptors))
            limit.add([], Double(vitals.maxDescriptors))
        }
        return [cpu, resident, virtual, start, open, limit]
    }
}
