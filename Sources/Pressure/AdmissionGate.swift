import Cgroup
import EventLoop
import ExtensiondPolicy
import Processes

/// Memory admission on the daemon's widgets (``MemoryAdmission``): every reading of the
/// tree and every pressure kill is fed to the policy, and each widget's scheduled
/// refreshes are held or released (the engine's `memoryHold`) as it decides. While the
/// policy holds anything, the tree is read again every ``rereadInterval``: easing is only
/// seen in a reading, and the kernel announces crossings of usage, not of the working set.
package final class AdmissionGate {
    private let loop: EventLoop
    private let tree: CgroupTree
    private let registry: ProcessRegistry
    private var admission = MemoryAdmission(thresholds: nil)
    private var reread: EventSource?
    /// Widget ids and whether their scheduled refreshes are held; the coordinator applies it.
    package var onHold: ((_ id: String, _ held: Bool) -> Void)?
    /// The widgets whose schedules are subject to admission.
    package var widgets: () -> [String] = { [] }

    static let rereadInterval: Duration = .seconds(1)

    init(loop: EventLoop, tree: CgroupTree, registry: ProcessRegistry) {
        self.loop = loop
        self.tree = tree
        self.registry = registry
    }

    /// A reading of the tree's working set against `thresholds` (`nil` without a budget).
    func observe(workingSet: UInt64, thresholds: PressureThresholds?) {
        admission.thresholds = thresholds
        admission.observe(workingSet: workingSet)
        apply()
    }

    /// The pressure policy killed `id`.
    func killedByPressure(_ id: String) {
        admission.killedByPressure(id)
        apply()
    }

    /// Holds or releases every widget's schedule as the policy says now.
    private func apply() {
        for id in widgets() {
            let process = registry[id]
            let peak = process.map(\.statistics.peakMemoryBytes).flatMap { $0 > 0 ? $0 : nil }
            let launchPeak = process?.isAlive == true ? nil : peak
            onHold?(id, !admission.admitsScheduledRefresh(of: id, launchPeak: launchPeak))
        }
        guard admission.isHolding else {
            reread = nil
            return
        }
        guard reread == nil else { return }
        reread = try? loop.addTimer(after: Self.rereadInterval, accuracy: .milliseconds(100)) { [unowned self] in
            self.reread = nil
            guard let reading = WorkingSet.read(self.tree.root) else { return }
            self.observe(workingSet: reading.workingSet, thresholds: self.admission.thresholds)
        }
    }
}
