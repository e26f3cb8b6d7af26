import Cgroup
import ControlProtocol
import EventLoop
import ExtensiondPolicy
import Histogram
import LinuxProcess

extension Daemon {
    /// `supervisorctl stats`: every selected process, then the daemon itself.
    func statsReport(for processes: [SupervisedProcess]) -> StatsReport {
        let now = loop.now
        let entries = processes.map { process -> ProcessStats in
            var stats = ProcessStats(name: process.name, kind: process.kind)
            stats.launches = process.statistics.launches
            stats.peakRSSBytes = process.statistics.peakRSSBytes
            stats.memoryPeakBytes = process.statistics.peakMemoryBytes
            stats.kills = process.statistics.kills
            if let latency = process.statistics.lastLaunchLatency {
                let micros = UInt64(latency.wholeMicroseconds)
                stats.launchLatencyUs = Latency(count: 1, p50: micros, p90: micros, p99: micros, max: micros)
            }
            if let run = process.run {
                stats.rssBytes = try? ProcessMemory.read(pid: run.pid).residentBytes
                process.statistics.peakRSSBytes = max(process.statistics.peakRSSBytes, stats.rssBytes ?? 0)
                stats.peakRSSBytes = process.statistics.peakRSSBytes
                stats.memoryCurrentBytes = try? run.group.memoryUsage()
                stats.memoryPeakBytes = max(process.statistics.peakMemoryBytes, (try? run.group.memoryPeak()) ?? 0)
            }
            if let record = extensions.records[process.name] {
                let counters = record.statistics
                stats.pullsCached = counters.pullsCached
                stats.pullsCoalesced = counters.pullsCoalesced
                stats.pullsUpdated = counters.pullsUpdated
                stats.resultsNewData = counters.resultsNewData
                stats.resultsNoData = counters.resultsNoData
                stats.resultsFailed = counters.resultsFailed
                stats.updateLatencyUs = counters.updateLatency.map(Latency.init)
                stats.budgetLeft = record.engine.record.schedule.bucket.tokens(at: now.policyInstant)
                if let next = record.engine.record.schedule.nextRefresh {
                    let wait: Duration = next - now.policyInstant
                    stats.nextRefreshInMs = wait.wholeMicroseconds / 1000
                }
            }
            return stats
        }
        let memory = try? ProcessMemory.read()
        let cpu = ProcessCPUTime.current()
        return StatsReport(processes: entries, daemon: DaemonStats(
            rssBytes: memory?.residentBytes ?? 0, anonymousBytes: memory?.anonymousBytes ?? 0,
            cpuUserMs: cpu.user.wholeMicroseconds / 1000, cpuSystemMs: cpu.system.wholeMicroseconds / 1000,
            cgroupBackend: cgroups.tree.version.rawValue, pressureLevel: pressure.report().level))
    }
}

extension Latency {
    init(_ histogram: Histogram<UInt32>) {
        self.init(count: Int(histogram.totalCount), p50: histogram.valueAtPercentile(50), p90: histogram.valueAtPercentile(90),
                  p99: histogram.valueAtPercentile(99), max: histogram.max)
    }
}
