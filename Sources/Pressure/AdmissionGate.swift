import Cgroup
import DaemonSupport
import EventLoop
import ExtensiondPolicy
import Processes

/// Memory admission on the daemon's widgets (``MemoryAdmission``): every reading of the
/// tree and every pressure kill is fed to the policy, and each widget's scheduled
/// refreshes are held or released (the engine's `memoryHold`) as it decides. The gate reads
/// the tree again at the policy's ``MemoryAdmission/nextReading`` with its own timer and its
/// own reading: the pressure monitor's thresholds, re-checks and episodes are not touched.
package final class AdmissionGate {
    let loop: EventLoop
    private let workingSet: WorkingSetReader
    let registry: ProcessRegistry
    var admission = MemoryAdmission(thresholds: nil)
    private var nextReading: EventSource?
    /// Launches waiting for memory, by extension id (``admitsLaunch(of:then:)``).
    var launches: [String: PendingLaunch] = [:]
    /// Starts an episode that frees room for a launch of this many bytes (its recorded
    /// peak counted as charged); false when one is under way. ``episodeEnded()`` follows.
    var onFree: ((_ reserve: UInt64) -> Bool)?
    /// Widget ids and whether their scheduled refreshes are held; the coordinator applies it.
    package var onHold: ((_ id: String, _ held: Bool) -> Void)?
    /// The widgets whose schedules are subject to admission.
    package var widgets: () -> [String] = { [] }

    init(loop: EventLoop, workingSet: WorkingSetReader, registry: ProcessRegistry) {
        self.loop = loop
        self.workingSet = workingSet
        self.registry = registry
    }

    /// A reading of the tree against `thresholds` (`nil` without a budget).
    func observe(_ reading: WorkingSet.Reading, thresholds: PressureThresholds?) {
        admission.thresholds = thresholds
        admission.observe(workingSet: reading.workingSet, usage: reading.usage, at: loop.now.policyInstant)
        apply()
    }

    /// The pressure policy killed `id`.
    func killedByPressure(_ id: String) {
        admission.killedByPressure(id)
        apply()
    }

    /// Holds or releases every widget's schedule as the policy says now, and arms the next reading.
    private func apply() {
        for id in widgets() {
            let launchPeak = registry[id]?.isAlive == true ? nil : recordedPeak(of: id)
            onHold?(id, !admission.admitsScheduledRefresh(of: id, launchPeak: launchPeak))
        }
        guard let due = admission.nextReading.map(MonotonicInstant.init(notBefore:)) else {
            nextReading = nil
            return
        }
        if let nextReading {
            nextReading.reschedule(at: due)
        } else {
            nextReading = loop.addTimer(at: due, accuracy: .milliseconds(100)) { [unowned self] in self.readTree() }
        }
    }

    func readTree() {
        guard let reading = workingSet.read() else {
            nextReading = nil
            return
        }
        observe(reading, thresholds: admission.thresholds)
    }
}
