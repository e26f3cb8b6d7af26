import Cgroup
import ControlProtocol
import EventLoop
import ExtensiondConfig

/// The daemon's memory pressure handling, assembled: the monitor's notifications run the
/// responder's episodes, and extensions are warned at their `memory_high`.
final class MemoryPressure {
    private let tree: CgroupTree
    private let monitor: PressureMonitor
    private let responder: PressureResponder
    private let warnings: MemoryWarnings

    /// `ownsRoot`: the tree's root is extensiond's alone (v2 may then set its `memory.high`).
    /// `lastUsed`: when a process last served a request, if it has.
    init(loop: EventLoop, tree: CgroupTree, ownsRoot: Bool, registry: ProcessRegistry, events: EventLog,
         lastUsed: @escaping (SupervisedProcess) -> MonotonicInstant?) {
        self.tree = tree
        monitor = PressureMonitor(loop: loop, tree: tree, ownsRoot: ownsRoot)
        responder = PressureResponder(registry: registry, events: events, tree: tree, lastUsed: lastUsed)
        warnings = MemoryWarnings(loop: loop, events: events)
        monitor.onTrigger = { [unowned self] trigger in
            self.responder.respond(to: trigger, watermarks: self.monitor.watermarks)
            self.monitor.follow(unmappedCache: self.responder.unmappedCache)
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
    func report() -> PressureReport {
        let usage = WorkingSet.read(tree.root)?.workingSet ?? 0
        let watermarks = monitor.watermarks
        var psi = PressureStallAverages.read(PressureStallAverages.systemFile)?.averages ?? [:]
        if tree.version == .v2, let subtree = PressureStallAverages.read(tree.root.description + "/memory.pressure") {
            for (key, value) in subtree.averages { psi["tree " + key] = value }
        }
        return PressureReport(
            cgroupBackend: tree.version.rawValue, budgetBytes: watermarks?.budgetBytes, usageBytes: usage,
            lowBytes: watermarks?.thresholds.lowBytes, criticalBytes: watermarks?.thresholds.criticalBytes,
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
