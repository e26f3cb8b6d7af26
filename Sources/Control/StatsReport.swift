import Cgroup
import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensiondPolicy
import LinuxProcess
import Processes

extension ControlCommands {
    /// `supervisorctl stats`: every selected process, then the daemon itself.
    func statsReport(for processes: [SupervisedProcess]) -> StatsReport {
        let now = loop.now
        let entries = processes.map { process -> ProcessStats in
            var stats = ProcessStats(name: process.name, kind: process.kind)
            stats.launches = process.statistics.launches
            stats.suspensions = process.statistics.suspensions
            stats.memoryPeakBytes = process.statistics.peakMemoryBytes
            stats.outputDroppedBytes = process.output.droppedBytes
            stats.kills = Dictionary(uniqueKeysWithValues: process.statistics.kills.map { ($0.key.rawValue, $0.value) })
            if process.statistics.launchLatency.count > 0 { stats.launchLatencyUs = Latency(process.statistics.launchLatency) }
            if let run = process.run {
                let memory = try? ProcessMemory.read(pid: run.pid)
                stats.rssBytes = memory?.residentBytes
                process.statistics.noteResident(memory?.peakResidentBytes ?? memory?.residentBytes)
                stats.memoryCurrentBytes = try? run.group.memoryUsage()
                stats.memoryPeakBytes = max(process.statistics.peakMemoryBytes, (try? run.group.memoryPeak()) ?? 0)
            }
            stats.peakRSSBytes = process.statistics.peakRSSBytes
            if let record = extensions.records[process.name] {
                record.annotate(&stats, now: now)
                stats.updateLatencyUs = record.statistics.updateLatency.map(Latency.init)
            }
            return stats
        }
        let memory = try? ProcessMemory.read()
        let cpu = ProcessCPUTime.current()
        return StatsReport(
            processes: entries,
            daemon: DaemonStats(
                rssBytes: memory?.residentBytes ?? 0, anonymousBytes: memory?.anonymousBytes ?? 0,
                cpuUserMs: cpu.user.wholeMicroseconds / 1000, cpuSystemMs: cpu.system.wholeMicroseconds / 1000,
                cgroupBackend: cgroups.tree.version.rawValue, pressureLevel: pressure.report().level))
    }
}

extension Latency {
    init(_ distribution: LatencyDistribution) {
        self.init(
            count: Int(distribution.count), p50: distribution.percentile(50), p90: distribution.percentile(90),
            p99: distribution.percentile(99), max: distribution.max)
    }

    /// Percentiles to the bucket bounds (launches are counted in buckets only).
    init(_ buckets: LatencyBuckets) {
        self.init(
            count: Int(buckets.count), p50: buckets.percentile(50), p90: buckets.percentile(90),
            p99: buckets.percentile(99), max: buckets.maxMicroseconds)
    }
}
