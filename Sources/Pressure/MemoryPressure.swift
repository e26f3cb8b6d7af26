/// Memory pressure: the monitor of the tree's usage and PSI, the responder's kill episodes,
/// memory warnings to extensions, the working-set readings and kill candidates, and the
/// admission of scheduled refreshes against memory.
///
/// This module owns deciding when pressure calls for a kill and whom, when memory holds
/// scheduled refreshes back, and when a launch may go. It kills only through the supervisor and must not know the
/// extension coordinator or hosts (admission reaches widgets through callbacks).
import Cgroup
import ControlProtocol
import DaemonSupport
import EventLoop
import ExtensiondConfig
import ExtensiondPolicy
import Processes

/// The daemon's memory pressure handling, assembled: the monitor's notifications run the
/// responder's episodes, and extensions are warned at their `memory_high` and when the
/// tree crosses `pressure.warn`.
package final class MemoryPressure {
    private let tree: CgroupTree
    /// The tree's readings, through its files kept open.
    private let workingSet: WorkingSetReader
    private let monitor: PressureMonitor
    private let responder: PressureResponder
    private let warnings: MemoryWarnings
    /// Which trigger starts an episode, and the re-checks after one.
    private var detection = PressureDetection<PressureTrigger>(usageNoise: PressureMonitor.usageNoise, moveSlack: PressureMonitor.thresholdSlack)
    /// Holds scheduled refreshes back while memory is short.
    package let admission: AdmissionGate

    /// `rootThrottle`: who sets the v2 `memory.high` of the tree's root at the budget.
    /// `lastUsed`: when a process last served a request, if it has.
    package init(
        loop: EventLoop, tree: CgroupTree, rootThrottle: RootThrottle, registry: ProcessRegistry, supervisor: ProcessSupervisor,
        events: EventLog, lastUsed: @escaping (SupervisedProcess) -> MonotonicInstant?
    ) {
        self.tree = tree
        workingSet = WorkingSetReader(tree: tree)
        monitor = PressureMonitor(loop: loop, tree: tree, rootThrottle: rootThrottle, events: events)
        warnings = MemoryWarnings(loop: loop, events: events)
        responder = PressureResponder(
            loop: loop, registry: registry, supervisor: supervisor, events: events, tree: tree, workingSet: workingSet, warnings: warnings,
            lastUsed: lastUsed)
        admission = AdmissionGate(loop: loop, workingSet: workingSet, registry: registry)
        monitor.onTrigger = { [unowned self] notified in
            // A throttle seen during an episode may be its victim's memory, not yet uncharged.
            var trigger = notified
            if !self.detection.isIdle {
                trigger.throttled = false
                self.responder.triggered()
            }
            self.execute(self.detection.handle(trigger.cause == .recheck ? .recheckDue(trigger) : .trigger(trigger, byStall: trigger.cause == .stall)))
        }
        responder.onReading = { [unowned self] reading, thresholds in self.admission.observe(reading, thresholds: thresholds) }
        responder.onKilled = { [unowned self] id in self.admission.killedByPressure(id) }
        supervisor.isMemoryShort = { [unowned self] in self.responder.isPastWarn }
        admission.onFree = { [unowned self] reserve in
            // A launch waits for the episode under way instead (its gate re-decides).
            guard self.detection.isIdle else { return false }
            self.execute(self.detection.handle(.trigger(PressureTrigger(cause: .launch, time: .current(), reserve: reserve), byStall: false)))
            return true
        }
        responder.onEpisodeEnded = { [unowned self] reading in
            self.monitor.followDaemonUsage()
            self.execute(self.detection.handle(.episodeEnded(reading)))
            self.admission.episodeEnded()
        }
    }

    private func execute(_ actions: [PressureDetection<PressureTrigger>.Action]) {
        for action in actions {
            switch action {
            case .startEpisode(let trigger):
                responder.respond(to: trigger, watermarks: monitor.watermarks, throttledAtLow: monitor.throttledAtLow)
            case .moveThresholds(let offset):
                monitor.moveUsageThresholds(offset: offset) { [unowned self] moved in
                    self.execute(self.detection.handle(.thresholdsMoved(moved)))
                }
            case .readTree:
                execute(detection.handle(.reading(workingSet.read())))
            case .armRecheck:
                monitor.armRecheck()
            }
        }
    }

    /// Arms the notifications `configuration` asks for, at start and after each reload,
    /// then triggers once.
    ///
    /// - Throws: ``SupervisorError/pressureTrigger(setting:_:)`` when the kernel refuses
    ///   `pressure.psi`, naming the setting and the kernel's rule.
    package func apply(_ configuration: Configuration) throws(SupervisorError) {
        // Then once, since usage may already be past a watermark (also after an error: what
        // was armed stays armed).
        defer {
            detection.armed(monitor.watermarks?.thresholds, usageThresholdOffset: monitor.usageThresholdOffset)
            execute(detection.handle(.trigger(PressureTrigger(cause: .armed, time: .current()), byStall: false)))
        }
        responder.trimWait = configuration.pressure.trimWait
        try monitor.arm(configuration)
    }

    /// v2: moves the throttle on `supervised` with the daemon's own usage (after a burst,
    /// when that has settled; episodes' ends do it themselves).
    package func followDaemonUsage() {
        monitor.followDaemonUsage()
    }

    /// Whether a kill may be near: an episode is under way, or the tree's working set,
    /// read now, is at or past `pressure.warn`. `false` without `memory_budget`.
    package var isNearLow: Bool {
        guard detection.isIdle else { return true }
        guard let warn = monitor.watermarks?.thresholds.warnBytes, let reading = workingSet.read() else { return false }
        return reading.workingSet >= warn
    }

    /// Hook for every launch: watches an extension's `memory_high`.
    package func launched(_ process: SupervisedProcess) {
        warnings.launched(process)
    }

    /// Hook for every end of a run.
    package func runEnded(_ process: SupervisedProcess) {
        warnings.runEnded(process)
        responder.runEnded(process)
    }

    /// `supervisorctl pressure`: budget use (the tree's ``WorkingSet``), watermarks, PSI
    /// averages and mechanisms.
    /// The PSI files of memory: `system` and, on v2, the daemon's `subtree`.
    package var stallFiles: [(scope: String, path: String)] {
        [("system", PressureStallAverages.systemFile)] + (tree.version == .v2 ? [("subtree", tree.root.description + "/memory.pressure")] : [])
    }

    package func report() -> PressureReport {
        let usage = workingSet.read()?.workingSet ?? 0
        let watermarks = monitor.watermarks
        var psi: [String: Double] = [:]
        for (scope, path) in stallFiles {
            for (key, value) in PressureStallAverages.read(path)?.averages ?? [:] { psi[scope == "system" ? key : "tree " + key] = value }
        }
        return PressureReport(
            cgroupBackend: tree.version.rawValue, budgetBytes: watermarks?.budgetBytes, usageBytes: usage,
            warnBytes: watermarks?.thresholds.warnBytes, lowBytes: watermarks?.thresholds.lowBytes, criticalBytes: watermarks?.thresholds.criticalBytes,
            level: "\(watermarks?.thresholds.level(forUsage: usage) ?? .none)", psi: psi,
            mechanisms: monitor.mechanisms + [
                "kernel OOM kills attributed per process (\(tree.version == .v1 ? "memory.oom_control eventfd" : "memory.events watch"))"
            ]
        )
    }
}
