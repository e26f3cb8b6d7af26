/// One memory-pressure episode as a state machine without I/O (DESIGN §3): read the
/// tree's working set, classify it against the watermarks, kill one victim chosen by
/// ``KillPolicy``, wait until its cgroup is empty or a deadline passes, and read again,
/// until the working set is under the low watermark or nothing more may be killed.
/// Feed it ``Event``s, execute the ``Action``s it returns in order; the daemon waits
/// through its event loop (lmkd's `is_waiting_for_kill`), never in a blocking call.
///
/// Waiting for the cgroup to empty before deciding again is what prevents surplus
/// kills: memory is only uncharged once the victim's processes are gone. A victim whose
/// group does not empty by the deadline is never chosen again in the episode.
///
/// A trigger that says the kernel throttled the tree at its `memory.high` (cgroup v2, where
/// the daemon sets it at `low`) counts as `low` pressure for the first decision when the
/// working set is within the re-check band of `low` (``PressureThresholds/needsRecheck(workingSet:)``):
/// the kernel saw usage pass `low`, and what it can still drop there (cache no process maps)
/// is less than the band, so it is reclaiming the working set itself (code pages that are
/// faulted back at once) and stalling whoever allocates.
///
/// With ``reclaimFirst`` (cgroup v2), a suspended victim's memory is first reclaimed by
/// the kernel (`memory.reclaim`: to swap or zram where there is some) and the tree read
/// again; it is killed only if that did not bring the working set under the watermark.
///
/// Every reading also goes to the ``PressureWarning`` kept across episodes: a crossing
/// of the `warn` watermark warns the extensions once. When that reading also decides a
/// kill, the warning waits until that kill is over (``Action/warn(workingSet:watermark:)``
/// comes right before its ``Action/record(_:)``): it cannot spare that victim, sent first
/// it held the signal back by 15–100 ms in the emulated VM, and sent during the victim's
/// exit it competes with that for the CPU (bench/README.md, relief4).
/// Every reading at or past `warn` trims (``Action/trim(workingSet:watermark:)``), before
/// that reading's kill decision: suspended extensions are ended gracefully while there is
/// still room for them to exit, rather than killed at `low`. A `low` victim a trim asked to
/// exit is given until ``trimWait`` after that request to exit by itself (the same
/// ``Action/wait(_:until:)``), and killed only then; a `critical` one is killed at once, and
/// so is one trimmed in this episode when the tree is throttled at `low`
/// (``throttledAtLow``): the wait would stall the foreground app.
public struct PressureEpisode: Sendable {
    /// What the daemon reports back.
    public enum Event: Sendable, Hashable {
        /// The tree's working set (``Action/readWorkingSet``); `nil` when it could not
        /// be read, which ends the episode.
        case workingSet(UInt64?)
        /// The processes that may be killed (``Action/listCandidates(_:)``) at `at`.
        case candidates([KillCandidate], at: Instant)
        /// The victim was sent SIGKILL at this instant; `nil` when no signal could be
        /// sent (it was gone already).
        case signalled(at: Instant?)
        /// The victim's cgroup was seen empty at this instant.
        case emptied(at: Instant)
        /// The wait's deadline passed with the victim's cgroup still populated.
        case deadlinePassed(at: Instant)
        /// The kernel was asked to reclaim the candidate's memory (``Action/reclaim(_:)``),
        /// whatever it managed.
        case reclaimed
        /// A new trigger came at this instant. During the wait for a trimmed victim's exit
        /// it ends the wait: the tree is read again, and a `critical` reading kills at once;
        /// a `low` one waits again, to the same bound. Otherwise it changes nothing (the
        /// daemon keeps it for the next episode).
        case triggered(at: Instant)
    }

    /// What the daemon must do.
    public enum Action: Sendable, Hashable {
        /// Read the tree's working set; answer ``Event/workingSet(_:)``.
        case readWorkingSet
        /// Tell every running extension the working set crossed `warn` (no answer).
        case warn(workingSet: UInt64, watermark: UInt64)
        /// End every suspended extension gracefully (thawed, `terminate`, reason `trim`;
        /// killed only if it does not exit): frozen, it holds memory for nothing running,
        /// and it cannot act on a warning (no answer).
        case trim(workingSet: UInt64, watermark: UInt64)
        /// List the processes that may be killed at this level; answer ``Event/candidates(_:at:)``.
        case listCandidates(PressureLevel)
        /// Ask the kernel to reclaim the suspended candidate's memory (v2 `memory.reclaim`,
        /// its resident bytes); answer ``Event/reclaimed``.
        case reclaim(KillCandidate)
        /// SIGKILL the victim's whole cgroup (reason: pressure kill at the level), then
        /// free its memory; answer ``Event/signalled(at:)``.
        case kill(KillCandidate, level: PressureLevel)
        /// Wait, on the event loop, until the victim's cgroup is empty (answer
        /// ``Event/emptied(at:)``) or the deadline (``Event/deadlinePassed(at:)``): after its
        /// kill, or, for one a trim asked to exit, before it.
        case wait(KillCandidate, until: Instant)
        /// A kill is over: record it.
        case record(Kill)
        /// The episode is over; ``warning`` holds the state to keep for the next one.
        case done
    }

    /// One kill, as the event log records it.
    public struct Kill: Sendable, Hashable {
        public var victim: KillCandidate
        public var level: PressureLevel
        /// Whether it was decided on the episode's trigger; `false` for a follow-up kill,
        /// decided after the previous victim's cgroup emptied (or its wait ended).
        public var isFirst: Bool
        /// The tree's working set when the victim was chosen.
        public var treeUsageBytes: UInt64
        /// What started this decision: the episode's trigger, or the end of the previous wait.
        public var trigger: Instant
        public var decision: Instant
        public var signal: Instant
        /// `nil` when the cgroup did not empty by the deadline.
        public var empty: Instant?
    }

    /// How long a kill waits for its victim's cgroup to empty.
    public let emptyTimeout: Duration
    /// How long after its `terminate` a `low` victim the trim asked to exit may take to go
    /// before it is killed (`pressure.trim_wait`).
    public let trimWait: Duration
    /// The watermarks; without them (no `memory_budget`) only a stall trigger acts.
    public let thresholds: PressureThresholds?
    /// Whether the tree was past `warn` at the last reading, across episodes.
    public private(set) var warning: PressureWarning
    /// The working set at the episode's last reading.
    public private(set) var lastWorkingSet: UInt64?
    /// Bytes about to be taken by a launch (its recorded peak, ``MemoryAdmission``): the
    /// episode frees room for them as if they were charged already, at `low` at most,
    /// so that only idle and suspended extensions make room.
    public let reserve: UInt64
    /// Whether a suspended victim's memory is reclaimed before it is killed (cgroup v2).
    public let reclaimFirst: Bool
    /// Whether the kernel throttles the tree at `low` (v2 `memory.high` there): whoever
    /// allocates, the foreground app too, is stalled during a wait at `low`. Then only a
    /// victim trimmed before this episode's trigger is waited for.
    public let throttledAtLow: Bool
    /// Whether ``Action/done`` was returned.
    public private(set) var isDone = false

    private var floor: PressureLevel
    /// Whether the first reading is judged as at the throttle (see the type's comment).
    private var throttled: Bool
    private var killedIDs = Set<String>()
    private var reclaimedIDs = Set<String>()
    private var exitWaits = Set<String>()
    private var trigger: Instant
    private var isFirst = true
    private var pending: Pending = .reading
    /// The warning of the reading that decided the kill under way, sent once it is over.
    private var warningAfterKill: Action?

    private enum Pending: Sendable, Hashable {
        case reading
        case candidates(level: PressureLevel, usage: UInt64)
        case reclaim
        case exit(KillCandidate)
        case signal(Kill)
        case empty(Kill)
        case none
    }

    /// An episode triggered at `trigger`. A stall trigger (PSI) counts as at least `low`
    /// pressure for its first decision: it kills at most one idle or suspended extension,
    /// and the kernel fires it again if the stall persists. A throttle trigger (`byThrottle`)
    /// does so when the working set is within the re-check band. Execute ``start()``'s action.
    public init(
        triggeredAt trigger: Instant, byStall: Bool, byThrottle: Bool = false, thresholds: PressureThresholds?, warning: PressureWarning,
        emptyTimeout: Duration, trimWait: Duration? = nil, reserve: UInt64 = 0, reclaimFirst: Bool = false, throttledAtLow: Bool = false
    ) {
        self.trigger = trigger
        self.reserve = reserve
        self.reclaimFirst = reclaimFirst
        self.throttledAtLow = throttledAtLow
        self.thresholds = thresholds
        self.warning = warning
        self.emptyTimeout = emptyTimeout
        self.trimWait = trimWait ?? emptyTimeout
        floor = byStall ? .low : .none
        throttled = byThrottle
    }

    /// The first action: read the working set.
    public func start() -> [Action] {
        [.readWorkingSet]
    }

    /// Takes the answer to the last action that asked for one. An event that answers
    /// nothing asked (a stale timer, say) changes nothing and returns no action.
    public mutating func handle(_ event: Event) -> [Action] {
        let actions = step(event)
        // A held warning goes out once the kill is over, or at once when no kill follows.
        guard let warning = warningAfterKill, !actions.isEmpty, !isKilling else { return actions }
        warningAfterKill = nil
        return [warning] + actions
    }

    /// Whether a kill is being decided, sent or waited for.
    private var isKilling: Bool {
        switch pending {
        case .candidates, .signal, .empty: true
        default: false
        }
    }

    private mutating func step(_ event: Event) -> [Action] {
        switch (pending, event) {
        case (.reading, .workingSet(let usage)):
            return read(usage)
        case let (.candidates(level, usage), .candidates(candidates, now)):
            return choose(among: candidates, at: level, usage: usage, now: now)
        case (.reclaim, .reclaimed):
            pending = .reading
            return [.readWorkingSet]
        case (.signal(let kill), .signalled(let at)):
            guard let at else {
                pending = .reading
                return [.readWorkingSet]
            }
            var signalled = kill
            signalled.signal = max(at, kill.decision)
            pending = .empty(signalled)
            return [.wait(kill.victim, until: signalled.signal + emptyTimeout)]
        case (.empty(let kill), .emptied(let at)):
            return finish(kill, empty: max(at, kill.signal), next: max(at, kill.signal))
        case (.empty(let kill), .deadlinePassed(let at)):
            return finish(kill, empty: nil, next: max(at, kill.signal))
        case (.exit(let victim), .emptied(let at)):
            // Gone by itself; its run may not be reaped yet, and is not to be chosen again.
            killedIDs.insert(victim.id)
            return afterExitWait(at)
        case (.exit, .deadlinePassed(let at)):
            return afterExitWait(at)
        case (.exit(let victim), .triggered(let at)):
            exitWaits.remove(victim.id)
            return afterExitWait(at)
        default:
            return []
        }
    }

    private mutating func read(_ usage: UInt64?) -> [Action] {
        guard let usage else { return end() }
        lastWorkingSet = usage
        var actions: [Action] = []
        let atThrottle = throttled && thresholds?.needsRecheck(workingSet: usage) == true
        let level = max(level(of: usage), floor, atThrottle ? .low : .none)
        floor = .none
        throttled = false
        if let thresholds {
            if warning.observe(workingSet: usage, thresholds: thresholds) {
                let warn = Action.warn(workingSet: usage, watermark: thresholds.warnBytes)
                if level > .none { warningAfterKill = warn } else { actions.append(warn) }
            }
            if usage >= thresholds.warnBytes { actions.append(.trim(workingSet: usage, watermark: thresholds.warnBytes)) }
        }
        guard level > .none else { return actions + end() }
        pending = .candidates(level: level, usage: usage)
        return actions + [.listCandidates(level)]
    }

    private func level(of usage: UInt64) -> PressureLevel {
        guard let thresholds else { return .none }
        guard reserve > 0 else { return thresholds.level(forUsage: usage) }
        return min(thresholds.level(forUsage: usage.saturatingAdd(reserve)), .low)
    }

    private mutating func choose(among candidates: [KillCandidate], at level: PressureLevel, usage: UInt64, now: Instant) -> [Action] {
        let eligible = candidates.filter { !killedIDs.contains($0.id) }
        guard let victim = KillPolicy.victim(among: eligible, at: level) else { return end() }
        if reclaimFirst, victim.band == .suspendedExtension, reclaimedIDs.insert(victim.id).inserted {
            pending = .reclaim
            return [.reclaim(victim)]
        }
        if let until = exitDeadline(of: victim, at: level, now: now), exitWaits.insert(victim.id).inserted {
            pending = .exit(victim)
            return [.wait(victim, until: until)]
        }
        killedIDs.insert(victim.id)
        let decision = max(now, trigger)
        let kill = Kill(
            victim: victim, level: level, isFirst: isFirst, treeUsageBytes: usage, trigger: trigger,
            decision: decision, signal: decision, empty: nil)
        pending = .signal(kill)
        return [.kill(victim, level: level)]
    }

    /// Until when `victim` may exit by itself before it is killed at `level`; `nil`: killed now.
    private func exitDeadline(of victim: KillCandidate, at level: PressureLevel, now: Instant) -> Instant? {
        guard level == .low, let asked = victim.exitAskedAt, now < asked + trimWait else { return nil }
        return !throttledAtLow || asked < trigger ? asked + trimWait : nil
    }

    private mutating func finish(_ kill: Kill, empty: Instant?, next: Instant) -> [Action] {
        var finished = kill
        finished.empty = empty
        // The re-evaluation that follows was triggered by the victim's departure.
        trigger = next
        isFirst = false
        pending = .reading
        return [.record(finished), .readWorkingSet]
    }

    private mutating func afterExitWait(_ at: Instant) -> [Action] {
        trigger = max(at, trigger)
        pending = .reading
        return [.readWorkingSet]
    }

    private mutating func end() -> [Action] {
        pending = .none
        isDone = true
        return [.done]
    }
}
