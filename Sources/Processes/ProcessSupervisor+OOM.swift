import ControlProtocol
import ExtensiondPolicy

/// Kernel OOM kills inside a run's group: watched from its launch, counted and recorded.
extension ProcessSupervisor {
    func watchOOM(_ process: SupervisedProcess, _ run: ProcessRun) {
        run.oomKillsAtLaunch = run.group.isNew ? 0 : (try? run.group.memoryEvents().oomKills) ?? 0
        guard let source = try? run.group.oomEvents(),
            let watch = try? loop.addIO(
                fd: source.fileDescriptor, events: source.readiness == .priority ? .priority : .readable, priority: .high,
                handler: { [unowned self, unowned process] _ in
                    _ = try? source.acknowledge()
                    self.oomNoticed(process)
                })
        else { return }
        run.oomWatch = (source, watch)
    }

    func oomNoticed(_ process: SupervisedProcess) {
        guard let run = process.run else { return }
        let kills = (try? run.group.memoryEvents().oomKills) ?? 0
        guard kills > run.oomKillsAtLaunch else { return }
        run.oomKillsAtLaunch = kills
        process.statistics.kills[.oom, default: 0] += 1
        run.stopReason = run.stopReason ?? .oom
        events.record(
            .oom, process.name, reason: StopReason.oom.rawValue,
            "the kernel OOM-killed a process in \(run.group) (memory_max \(process.definition.limits.memoryMax?.description ?? "none"))",
            figures: [("CGROUP", "\(run.group)"), ("OOM_KILLS", "\(kills)")]
                + (process.definition.limits.memoryMax.map { [("MEMORY_MAX_BYTES", "\($0.bytes)")] } ?? []))
    }
}
