import DaemonSupport
import EventLoop
import ExtensiondPolicy

/// Launches a host asked for, admitted against memory
/// (``MemoryAdmission/launchDecision(of:peak:askedAt:freed:now:)``): at once when the
/// widget's recorded peak fits under `low`; otherwise after an episode that frees room for
/// it (``onFree``) and, if that was not enough, after a bounded wait for a reading with
/// room; or refused, its requests failing with an error naming memory.
extension AdmissionGate {
    /// A launch waiting for memory.
    struct PendingLaunch {
        var askedAt: Instant
        var freed = false
        /// The next decision, while it waits for a reading.
        var recheck: EventSource?
        /// Called once decided: `nil` to launch, or why not.
        var decided: (_ refusal: String?) -> Void
    }

    /// Whether extension `id` may be launched now. If not, `decided` is called on the loop
    /// once it may (`nil`) or will not be (why not); a launch already waiting ignores it.
    package func admitsLaunch(of id: String, then decided: @escaping (_ refusal: String?) -> Void) -> Bool {
        guard launches[id] == nil else { return false }
        guard admission.thresholds != nil else { return true }
        readTree()
        let now = loop.now.policyInstant
        if admission.launchDecision(of: id, peak: recordedPeak(of: id), askedAt: now, freed: false, now: now) == .launch { return true }
        launches[id] = PendingLaunch(askedAt: now, decided: decided)
        decide(id)
        return false
    }

    /// An episode is over: launches that waited for it decide again.
    func episodeEnded() {
        for (id, launch) in launches where launch.freed && launch.recheck == nil { decide(id) }
    }

    private func decide(_ id: String) {
        guard var launch = launches[id] else { return }
        launch.recheck = nil
        let decision = admission.launchDecision(of: id, peak: recordedPeak(of: id), askedAt: launch.askedAt, freed: launch.freed, now: loop.now.policyInstant)
        switch decision {
        case .launch:
            launches[id] = nil
            launch.decided(nil)
        case .refuse(let why):
            launches[id] = nil
            launch.decided(why)
        case .free:
            launch.freed = true
            launches[id] = launch
            // Decided again when the episode is over (at once when there was nothing to kill).
            if onFree?(recordedPeak(of: id) ?? 0) != true { wait(id, until: loop.now.policyInstant + MemoryAdmission.launchRecheck) }
        case .wait(let until):
            launches[id] = launch
            wait(id, until: until)
        }
    }

    private func wait(_ id: String, until: Instant) {
        launches[id]?.recheck = loop.addTimer(at: MonotonicInstant(notBefore: until)) { [unowned self] in
            self.readTree()
            self.decide(id)
        }
    }

    /// The peak of `id`'s cgroup over its earlier runs, if it ran.
    func recordedPeak(of id: String) -> UInt64? {
        registry[id].map(\.statistics.peakMemoryBytes).flatMap { $0 > 0 ? $0 : nil }
    }
}
