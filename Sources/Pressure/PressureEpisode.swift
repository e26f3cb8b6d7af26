import EventLoop
import ExtensiondPolicy

/// What woke the pressure responder.
struct PressureTrigger {
    /// Which mechanism fired.
    enum Cause: String {
        /// The watermarks were (re)armed: usage may already be past one.
        case armed
        /// A v1 usage threshold eventfd at a watermark.
        case usageThreshold = "usage threshold"
        /// A v1 `memory.pressure_level` eventfd: the tree is reclaiming.
        case reclaim = "pressure_level"
        /// A v2 `memory.events` change of the tree (`high`, `max`, `oom`).
        case memoryEvents = "memory.events"
        /// A PSI trigger (`pressure.psi`, system-wide or the subtree's).
        case stall = "PSI"
        /// A re-check of a working set near or past the low watermark (see
        /// ``PressureMonitor/settle(after:)``).
        case recheck = "re-check"
    }

    var cause: Cause
    /// When the notification was read (CLOCK_MONOTONIC).
    var time: MonotonicInstant
}

/// One kill of an episode, as the event log records it.
struct PressureKill {
    var victim: KillCandidate
    var level: PressureLevel
    /// What started the episode; `nil` for a follow-up kill, decided after the previous
    /// victim's cgroup emptied.
    var cause: PressureTrigger.Cause?
    /// The tree's working set when the victim was chosen.
    var treeUsageBytes: UInt64
    var trigger: MonotonicInstant
    var decision: MonotonicInstant
    var signal: MonotonicInstant
    /// `nil` when the cgroup did not empty within the bound.
    var empty: MonotonicInstant?
    /// The last reading of the tree below the low watermark before the decision.
    var lastBelowLow: MonotonicInstant?

    var reason: StopReason { .pressureKill(at: level) }
}

/// What an episode reads and does: the daemon's cgroups, or a test's simulation.
protocol PressureEnvironment {
    /// CLOCK_MONOTONIC now.
    func now() -> MonotonicInstant
    /// The memory of the whole tree that counts against the budget (its ``WorkingSet``);
    /// `nil` when it cannot be read.
    func treeUsage() -> UInt64?
    /// The processes that may be killed at `level`.
    func candidates(at level: PressureLevel) -> [KillCandidate]
    /// Sends SIGKILL to every process of the victim's cgroup; returns when the first
    /// signal was sent, or `nil` when none could be.
    func kill(_ victim: KillCandidate, reason: StopReason) -> MonotonicInstant?
    /// Waits, bounded, until the victim's cgroup is empty; returns when it was seen empty.
    func waitUntilEmpty(_ victim: KillCandidate) -> MonotonicInstant?
    /// Records a kill once it is over.
    func killed(_ kill: PressureKill)
    /// Tells every running extension that the tree's working set crossed the `warn`
    /// watermark (`memoryWarning` with `level: warn`).
    func warnExtensions(workingSet: UInt64, watermark: UInt64)
}

/// One pressure episode: classify, kill one victim, wait until its cgroup is empty,
/// classify again, until usage is under the low watermark or nothing may be killed.
/// Every reading also goes to the ``PressureWarning`` kept across episodes: a crossing of
/// the `warn` watermark warns the extensions once, before any kill of that episode.
///
/// Waiting for the cgroup to empty before deciding again is what prevents surplus
/// kills: memory is only uncharged once the victim's processes are gone.
enum PressureEpisode {
    /// Runs an episode started by `trigger` and returns its kills.
    ///
    /// Without `thresholds` (no `memory_budget`) only a PSI trigger acts, and a PSI
    /// trigger counts as at least `low` pressure for its first decision: it kills at most
    /// one idle extension, and the kernel fires it again if the stall persists.
    @discardableResult
    static func run(
        after trigger: PressureTrigger, thresholds: PressureThresholds?, warning: inout PressureWarning,
        in environment: some PressureEnvironment
    ) -> [PressureKill] {
        var kills: [PressureKill] = []
        var killedIDs = Set<String>()
        var triggerTime = trigger.time
        var cause: PressureTrigger.Cause? = trigger.cause
        var floor: PressureLevel = trigger.cause == .stall ? .low : .none
        while let usage = environment.treeUsage() {
            if let thresholds, warning.observe(workingSet: usage, thresholds: thresholds) {
                environment.warnExtensions(workingSet: usage, watermark: thresholds.warnBytes)
            }
            let level = max(thresholds?.level(forUsage: usage) ?? .none, floor)
            floor = .none
            guard level > .none else { break }
            let candidates = environment.candidates(at: level).filter { !killedIDs.contains($0.id) }
            guard let victim = KillPolicy.victim(among: candidates, at: level) else { break }
            let decision = environment.now()
            killedIDs.insert(victim.id)
            guard let signal = environment.kill(victim, reason: .pressureKill(at: level)) else { continue }
            let empty = environment.waitUntilEmpty(victim)
            let kill = PressureKill(victim: victim, level: level, cause: cause, treeUsageBytes: usage, trigger: triggerTime,
                                    decision: decision, signal: signal, empty: empty)
            environment.killed(kill)
            kills.append(kill)
            // The re-evaluation that follows was triggered by the victim's departure.
            triggerTime = empty ?? environment.now()
            cause = nil
        }
        return kills
    }
}
