import EventLoop
import ExtensiondPolicy

/// What woke the pressure responder.
struct PressureTrigger: Hashable {
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
        /// ``PressureDetection``).
        case recheck = "re-check"
        /// A launch a host asked for needs room (``AdmissionGate/admitsLaunch(of:then:)``).
        case launch = "launch admission"
    }

    var cause: Cause
    /// When the notification was read (CLOCK_MONOTONIC).
    var time: MonotonicInstant
    /// Bytes about to be taken by a launch, counted as charged (``Cause/launch``).
    var reserve: UInt64 = 0
    /// v2: the tree's `high` or `max` events grew since the last notification: the kernel
    /// throttled it at `memory.high`, which the daemon sets at `low` (``PressureEpisode``).
    var throttled = false
}

/// One kill of an episode, as the event log records it: the policy's figures, on the
/// loop's clock, with what started the episode.
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

    /// `kill`, decided in an episode that `cause` started.
    init(_ kill: PressureEpisode.Kill, cause: PressureTrigger.Cause) {
        victim = kill.victim
        level = kill.level
        self.cause = kill.isFirst ? cause : nil
        treeUsageBytes = kill.treeUsageBytes
        trigger = MonotonicInstant(notBefore: kill.trigger)
        decision = MonotonicInstant(notBefore: kill.decision)
        signal = MonotonicInstant(notBefore: kill.signal)
        empty = kill.empty.map(MonotonicInstant.init(notBefore:))
    }
}
