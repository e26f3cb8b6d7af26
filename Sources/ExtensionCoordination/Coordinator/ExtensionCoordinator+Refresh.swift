import DaemonSupport
import EventLoop
import ExtensiondPolicy
import HostProtocol

/// Executing the refresh engines' actions (one engine per display mode), and their timers.
extension ExtensionCoordinator {
    /// Applies `event` to the engine of `slot` and performs what it says.
    func handle(_ event: RefreshEvent<EncodedJSON>, _ record: ExtensionRecord, _ slot: ModeSlot) {
        perform(record, slot, run(event, record, slot))
    }

    /// Applies `event` to the engine of `slot` with the extension's shared budget, and
    /// returns the actions to perform.
    func run(_ event: RefreshEvent<EncodedJSON>, _ record: ExtensionRecord, _ slot: ModeSlot) -> [RefreshAction<EncodedJSON>] {
        if let budget = record.budget { slot.engine.budget = budget }
        var generator = ConcreteRandom(random)
        let actions = slot.engine.handle(event, at: now, using: &generator)
        random = generator.base
        record.budget = slot.engine.budget
        return actions
    }

    /// What the hosts of `answer`'s pulls are told.
    func pullOutcome(of answer: PullAnswer<EncodedJSON>, _ record: ExtensionRecord, _ slot: ModeSlot) -> PullOutcome {
        var outcome = PullOutcome(answer, slot: slot, versionOffset: record.shownVersion.offset)
        outcome.date = answer.state.snapshot?.timelineDate.map { wallDate(of: $0, slot) }
        return outcome
    }

    /// With `updateFirst` (a pull's actions, which kill nothing), an update a running
    /// extension can take goes out before the pulls are answered: it works on it while
    /// their answers are written. One that needs a launch waits for them, as a launch that
    /// fails at once answers them with its failure.
    func perform(_ record: ExtensionRecord, _ slot: ModeSlot, _ actions: [RefreshAction<EncodedJSON>], updateFirst: Bool = false) {
        recordShownVersion(record)
        // Asked once: the update's dispatch needs it too (each ask costs about 1,100
        // instructions, bench/README.md "The update path on a diet").
        let phase = updateFirst && actions.contains { if case .startUpdate = $0 { true } else { false } } ? processes.phase(of: record.id) : nil
        let sentFirst = phase.map { $0 != .notRunning } ?? false
        if sentFirst {
            for case .startUpdate(let request) in actions { startUpdate(request, record, slot, phase: phase) }
        }
        for action in actions {
            switch action {
            case .answer(let answer):
                let outcome = pullOutcome(of: answer, record, slot)
                for token in answer.pulls {
                    record.statistics.count(answer.delivery)
                    if !answer.isRevalidating { slot.revalidations[token] = nil }
                    slot.pendingPulls.removeValue(forKey: token)?(outcome)
                }
            case .revalidated(let answer):
                let outcome = pullOutcome(of: answer, record, slot)
                for token in answer.pulls {
                    slot.revalidations.removeValue(forKey: token)?(outcome)
                }
            case .startUpdate(let request):
                if !sentFirst { startUpdate(request, record, slot) }
            case .pushSnapshot(let snapshot):
                onPush?(
                    record.id,
                    SupervisorToHost.Snapshot(
                        id: nil, extensionID: record.id, result: .newData, snapshot: snapshot.payload,
                        version: snapshot.version &+ record.shownVersion.offset,
                        ageMs: 0, stale: false, mode: slot.mode, preferredSize: slot.preferredSize,
                        date: snapshot.timelineDate.map { wallDate(of: $0, slot) }, instance: slot.instance))
            case .killForDeadline:
                record.abandonOutstandingUpdate(at: clock.now)
                record.lastResult = ("failed", clock.now)
                if processes.phase(of: record.id) != .notRunning {
                    processes.kill(record.id, reason: .deadline, message: "no result within deadline \(record.spec.refresh.deadline.formatted)")
                }
                record.queue.removeAll { if case .update(_, slot.key) = $0 { true } else { false } }
            case .armTimer(let instant):
                armRefreshTimer(record, slot, at: instant)
            case .persist:
                writer.changed(record.id)
            case .reloadAnswer:
                break  // read by `reload(_:)`, the app's request
            }
        }
    }

    private func startUpdate(_ request: UpdateRequest, _ record: ExtensionRecord, _ slot: ModeSlot, phase: ExtensionPhase? = nil) {
        record.queue.append(.update(request, slot.key))
        dispatch(record, phase: phase)
    }

    /// Wall-clock milliseconds minus monotonic ones, now.
    var wallOffsetMs: Int64 { clock.wallMilliseconds - now.nanoseconds / 1_000_000 }

    /// A timeline entry's instant as the wall-clock date it was given as (see ``ModeSlot/wallOffsetMs``).
    func wallDate(of instant: Instant, _ slot: ModeSlot) -> UnixTime {
        UnixTime(secondsSince1970: Double(instant.nanoseconds / 1_000_000 + slot.wallOffsetMs) / 1000)
    }

    /// A timer no longer wanted is disarmed, not dropped: the engine's wake time goes from
    /// an update's deadline to none and back with every update.
    func armRefreshTimer(_ record: ExtensionRecord, _ slot: ModeSlot, at instant: Instant?) {
        guard let instant else {
            slot.refreshTimer?.disarm()
            return
        }
        let deadline = MonotonicInstant(notBefore: instant)
        if let timer = slot.refreshTimer {
            timer.reschedule(at: deadline)
        } else {
            // 1 ms: a timer alone fires at the end of its window, and a timeline entry is due
            // at its date (with 50 ms, pushes came 49 ms late); scheduled refreshes carry
            // their own random spread, so a wider window would save no wake-up worth having.
            slot.refreshTimer = clock.timer(at: deadline, accuracy: .milliseconds(1)) { [unowned self, unowned record, unowned slot] in
                // A disabled extension is not refreshed in the background (enabling it re-arms
                // the timer), but an update already in flight still meets its deadline.
                guard record.enabled || slot.engine.updateInFlight != nil else { return }
                if let update = slot.engine.updateInFlight {
                    // Its result may be waiting unread: then it is answered, and re-armed.
                    self.processes.readPending(record.id)
                    guard slot.engine.updateInFlight == update else { return }
                }
                self.handle(.timerFired, record, slot)
            }
        }
    }

    /// Arms every mode's timer where its engine wants it (after a restore or an enable).
    func armRefreshTimers(_ record: ExtensionRecord) {
        for slot in record.slots.values { armRefreshTimer(record, slot, at: slot.engine.wakeTime) }
    }
}
