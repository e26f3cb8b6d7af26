import Cgroup
import ControlProtocol
import EventLoop
import ExtensiondConfig

/// The daemon's memory pressure handling, assembled: the monitor's notifications run the
/// responder's episodes, and extensions are warned at their `memory_high` and when the
/// tree crosses `pressure.warn`.
final class MemoryPressure {
    private let tree: CgroupTree
    private let monitor: PressureMonitor
    private let responder: PressureResponder
    private let warnings: MemoryWarnings
    /// Holds scheduled refreshes back while memory is short.
    let admission: AdmissionGate

    /// `throttle`: who sets the v2 `memory.high` of the tree's root.
    /// `lastUsed`: when a process last served a request, if it has.
    init(loop: EventLoop, tree: CgroupTree, throttle: RootThrottle, registry: ProcessRegistry, supervisor: ProcessSupervisor,
         events: EventLog, lastUsed: @escaping (SupervisedProcess) -> MonotonicInstant?) {
        self.tree = tree
        monitor = PressureMonitor(loop: loop, tree: tree, throttle: throttle, events: events)
        warnings = MemoryWarnings(loop: loop, events: events)
        responder = PressureResponder(loop: loop, registry: registry, supervisor: supervisor, events: events, tree: tree, warnings: warnings,
                                      lastUsed: lastUsed)
        admission = AdmissionGate(loop: loop, tree: tree, registry: registry)
        monitor.onTrigger = { [unowned self] trigger in
            self.responder.respond(to: trigger, watermarks: self.monitor.watermarks)
        }
        responder.onReading = { [unowned self] workingSet, thresholds in self.admission.observe(workingSet: workingSet, thresholds: thresholds) }
        responder.onKilled = { [unowned self] id in self.admission.killedByPressure(id) }
        responder.onEpisodeEnded = { [unowned self] in
            if let reading = self.responder.lastReading { self.monitor.settle(after: reading) }
        }
    }

    /// Arms the notifications `configuration` asks for, at start and after each reload.
    ///
    /// - Throws: ``SupervisorError/pressureTrigger(setting:_:)`` when the kernel refuses
    ///   `pressure.psi`, naming the setting and the kernel's rule.
    func apply(_ configuration: Configuration) throws(SupervisorError) {
        try monitor.arm(configuration)
    }

    /// Hook for every launch: watches an extension's `memory_high`.
    func launched(_ process: SupervisedProcess) {
        warnings.launched(process)
    }

    /// Hook for every end of a run.
    func runEnded(_ process: SupervisedProcess) {
        warnings.runEnded(process)
        responder.runEnded(process)
    }

    /// `supervisorctl pressure`: budget use (the tree's ``WorkingSet``), watermarks, PSI
    /// averages and mechanisms.
    /// The PSI files of memory: `system` and, on v2, the daemon's `subtree`.
    var stallFiles: [(scope: String, path: String)] {
        [("system", PressureStallAverages.systemFile)] + (tree.version == .v2 ? [("subtree", tree.root.description + "/memory.pressure")] : [])
    }

    func report() -> PressureReport {
        let usage = WorkingSet.read(tree.root)?.workingSet ?? 0
        let watermarks = monitor.watermarks
        var psi: [String: Double] = [:]
        for (scope, path) in stallFiles {
            for (key, value) in PressureStallAverages.read(path)?.averages ?? [:] { psi[scope == "system" ? key : "tree " + key] = value }
        }
        return PressureReport(
            cgroupBackend: tree.version.rawValue, budgetBytes: watermarks?.budgetBytes, usageBytes: usage,
            warnBytes: watermarks?.thresholds.warnBytes, lowBytes: watermarks?.thresholds.lowBytes, criticalBytes: watermarks?.thresholds.criticalBytes,
            level: "\(watermarks?.thresholds.level(forUsage: usage) ?? .none)", psi: psi,
            mechanisms: monitor.mechanisms + ["kernel OOM kills attributed per process (\(tree.version == .v1 ? "memory.oom_control eventfd" : "memory.events watch"))"]
        )
    }
}

extension Daemon {
    /// The checks of `configuration` that need the kernel rather than the parser, cheap
    /// enough for `--check-config`: whether the kernel takes `pressure.psi` from this
    /// process (without CAP_SYS_RESOURCE only windows that are a multiple of 2 s).
    ///
    /// - Throws: ``SupervisorError/pressureTrigger(setting:_:)`` naming the setting and the kernel's rule.
    public static func checkKernelSettings(_ configuration: Configuration) throws(SupervisorError) {
        if let trigger = configuration.pressure.psi { try PressureMonitor.check(trigger) }
    }
}
