import Cgroup
import DaemonSupport
import EventLoop
import Processes
import WireProtocol

/// Tells every running extension, and the event log, when the tree crosses `pressure.warn`
/// (``warnTree(_:workingSet:watermark:)``), and what they freed a second later.
///
/// Tells an extension, and the event log, when its cgroup crosses `memory_high`:
/// v1 a usage-threshold eventfd at `memory_high` (fires on each crossing, both ways);
/// v2 a watch of the group's `memory.events`, whose `high` counter grows past it.
///
/// One warning per crossing: after a warning, the next comes once usage has been seen
/// below `memory_high` again.
final class MemoryWarnings {
    private let loop: EventLoop
    private let events: EventLog
    private var watches: [String: Watch] = [:]
    /// The count of what the extensions warned of the tree's crossing freed.
    private var freedCheck: EventSource?

    /// How long after a tree warning what the extensions freed is measured.
    static let freeingTime: Duration = .seconds(1)

    /// The notification of one run of one extension.
    private final class Watch {
        let run: ProcessRun
        let high: UInt64
        var event: EventSource?
        let source: CgroupEventSource
        var highEvents: UInt64
        var warned = false

        init(run: ProcessRun, high: UInt64, source: CgroupEventSource) {
            self.run = run
            self.high = high
            self.source = source
            highEvents = (try? run.group.memoryEvents().high ?? 0) ?? 0
        }
    }

    init(loop: EventLoop, events: EventLog) {
        self.loop = loop
        self.events = events
    }

    /// Watches a newly launched extension that has a `memory_high`.
    func launched(_ process: SupervisedProcess) {
        guard process.kind == .extension, let high = process.definition.limits.memoryHigh?.bytes, let run = process.run else { return }
        do {
            let source = try run.group.version == .v1 ? run.group.usageThreshold(high) : run.group.oomEvents()
            let watch = Watch(run: run, high: high, source: source)
            watch.event = try loop.addIO(fd: source.fileDescriptor, events: .readable) { [unowned self, unowned process, unowned watch] _ in
                _ = try? watch.source.acknowledge()
                self.check(process, watch)
            }
            watches[process.name] = watch
        } catch {
            events.record(.error, process.name, "cannot watch memory_high of \(run.group): \(error)")
        }
    }

    /// Drops the watch of a run that is over.
    func runEnded(_ process: SupervisedProcess) {
        watches.removeValue(forKey: process.name)
    }

    /// Sends `memoryWarning` with `level: warn` to every extension of `processes` that is
    /// ready (nothing is sent before `ready`), and records who held what; a second later,
    /// records what each freed.
    func warnTree(_ processes: [SupervisedProcess], workingSet: UInt64, watermark: UInt64) {
        var warned: [(name: String, run: ProcessRun, before: UInt64)] = []
        for process in processes where process.kind == .extension && (process.state == .idle || process.state == .running) {
            guard let run = process.run, let channel = run.channel else { continue }
            channel.send(.memoryWarning(.init(current: workingSet, high: watermark, level: .warn)))
            process.statistics.memoryWarnings.warn += 1
            warned.append((process.name, run, (try? run.group.memoryUsage()) ?? 0))
        }
        let holdings = warned.map { "\($0.name) \($0.before >> 20)M" }.joined(separator: ", ")
        events.record(
            .memoryWarning, nil, reason: "warn",
            "tree at \(workingSet >> 20)M crossed pressure.warn \(watermark >> 20)M: warned \(warned.count) extensions (\(holdings))")
        guard !warned.isEmpty else { return }
        freedCheck = loop.addTimer(after: Self.freeingTime) { [unowned self] in
            self.freedCheck = nil
            var total: UInt64 = 0
            let changes = warned.map { name, run, before in
                let after = (try? run.group.memoryUsage()) ?? 0  // a run that ended holds nothing
                total += before - min(before, after)
                return "\(name) \(before >> 20)M→\(after >> 20)M"
            }
            self.events.record(
                .memoryWarning, nil, reason: "warn",
                "\(Self.freeingTime.formatted) after the pressure.warn warning the extensions had freed \(total >> 20)M (\(changes.joined(separator: ", ")))")
        }
    }

    private func check(_ process: SupervisedProcess, _ watch: Watch) {
        guard process.run === watch.run, let usage = try? watch.run.group.memoryUsage() else { return }
        let crossed: Bool
        if watch.run.group.version == .v1 {
            crossed = usage >= watch.high
        } else {
            let highEvents = (try? watch.run.group.memoryEvents().high ?? 0) ?? watch.highEvents
            crossed = highEvents > watch.highEvents
            watch.highEvents = highEvents
        }
        if crossed && !watch.warned {
            watch.run.channel?.send(.memoryWarning(.init(current: usage, high: watch.high)))
            process.statistics.memoryWarnings.high += 1
            events.record(.memoryWarning, process.name, "memory \(usage >> 20)M crossed memory_high \(watch.high >> 20)M")
        }
        watch.warned = usage >= watch.high
    }
}
