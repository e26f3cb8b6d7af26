import DaemonSupport
import EventLoop
import ExtensiondPolicy
import WireProtocol

/// The request queue and the life of a run: launch on demand, `ready` within
/// `start_timeout`, one request at a time, the idle exit.
extension ExtensionCoordinator {
    /// Sends the next queued request if the extension is ready and free; launches it
    /// if it is not running. `phase` is the run's phase when the caller just asked for it.
    func dispatch(_ record: ExtensionRecord, phase: ExtensionPhase? = nil) {
        guard !record.queue.isEmpty, record.outstanding == nil else { return }
        switch phase ?? processes.phase(of: record.id) {
        case .notRunning:
            do {
                try processes.launch(record.id)
            } catch {
                fail(record, because: "launch failed: \(error)")
            }
            return
        case .starting:
            return
        case .stopping:
            // A run being stopped (told to `terminate`) takes no new request: it waits for
            // the end of the run and a new launch (see `runEnded`).
            return
        case .ready:
            // Thawed before the request is written: a frozen run would not read it.
            processes.resume(record.id)
        }
        let started = clock.now
        switch record.queue.removeFirst() {
        case .update(let request, let key):
            nextRequestID += 1
            let requestID = RequestID(rawValue: nextRequestID)
            record.outstanding = .update(requestID, ModeUpdate(key: key, id: request.id), startedAt: started)
            let modeChanged = record.modeChanged.remove(key) != nil && request.reason == .pull
            processes.send(updateMessage(requestID, request, key, record, modeChanged: modeChanged), to: record.id)
        case .action(let items, let completion):
            nextRequestID += 1
            let requestID = RequestID(rawValue: nextRequestID)
            let deadline = clock.timer(after: record.spec.refresh.deadline) { [unowned self, unowned record] in
                self.processes.readPending(record.id)
                guard case .action(requestID, _, _, _) = record.outstanding else { return }
                self.processes.kill(record.id, reason: .deadline, message: "no complete within deadline \(record.spec.refresh.deadline.formatted)")
            }
            record.outstanding = .action(requestID, startedAt: started, deadline: deadline, completion: completion)
            processes.send(.begin(.init(id: requestID, items: items)), to: record.id)
        }
        becameActive(record)
    }

    /// A launch ``ExtensionProcesses/launch(_:)`` deferred (waiting for memory) will not
    /// happen: the event log says why, and what waited for it fails with that reason.
    package func launchFailed(_ id: String, because reason: String) {
        guard let record = records[id] else { return }
        events.record(.error, id, reason)
        fail(record, because: reason)
    }

    /// Every queued request fails (the extension could not be launched).
    func fail(_ record: ExtensionRecord, because reason: String) {
        defer { failExecutions(record) }
        let queued = record.queue
        record.queue.removeAll()
        for request in queued {
            if case .action(_, let completion) = request { completion(.failed(reason)) }
        }
        if record.isUpdating { record.lastResult = ("failed", clock.now) }
        for slot in record.orderedSlots where slot.engine.updateInFlight != nil {
            handle(.extensionExited(reason: reason), record, slot)
        }
    }

    /// A new run: `ready` must come within `start_timeout`.
    package func launched(_ id: String) {
        guard let record = records[id] else { return }
        let timeout = record.spec.startTimeout
        record.startTimer = clock.timer(after: timeout) { [unowned self] in
            self.processes.readPending(id)
            guard self.processes.phase(of: id) == .starting else { return }
            self.processes.kill(id, reason: .deadline, message: "no ready within start_timeout \(timeout.formatted)")
        }
    }

    /// After a request finished: the next one, or idle.
    func settle(_ record: ExtensionRecord) {
        if record.queue.isEmpty {
            becameIdle(record)
        } else {
            dispatch(record)
        }
    }

    /// Nothing in flight: suspended after `suspend_after` and asked to exit after
    /// `idle_exit`, unless used again. A timer already armed stays armed and, when it
    /// fires early, moves to the end of the new quiet spell: an update costs the loop no
    /// timer of its own (see ``quietTimerFired(_:_:after:act:)``).
    private func becameIdle(_ record: ExtensionRecord) {
        guard processes.phase(of: record.id) != .notRunning, record.isQuiet else { return }
        processes.markServing(record.id, false)
        record.quietSince = clock.now
        let idleExit = record.spec.idleExit
        if record.idleTimer == nil {
            record.idleTimer = clock.timer(after: idleExit, accuracy: Self.slack(of: idleExit)) { [unowned self, unowned record] in
                self.quietTimerFired(record, \.idleTimer, after: record.spec.idleExit) {
                    record.idleTimer = nil
                    record.suspendTimer = nil
                    self.processes.stop(record.id, reason: .idle)
                }
            }
        }
        let suspendAfter = record.spec.suspendAfter
        guard suspendAfter > .zero, suspendAfter < idleExit, record.suspendTimer == nil else { return }
        // Past `pressure.warn` it would be ended at its `suspend_after` anyway (trimmed): it
        // goes now, while there is room for it to exit, not when `low` comes and kills it.
        guard !processes.isMemoryShort else { return processes.suspend(record.id) }
        record.suspendTimer = clock.timer(after: suspendAfter, accuracy: Self.slack(of: suspendAfter)) { [unowned self, unowned record] in
            self.quietTimerFired(record, \.suspendTimer, after: record.spec.suspendAfter) {
                record.suspendTimer = nil
                self.processes.suspend(record.id)
            }
        }
    }

    /// An idle or suspend timer fired: `act` once the run has been quiet for `delay`; a
    /// timer that fired during or too soon after a request is moved to the end of the
    /// present quiet spell, or left until the next one begins.
    private func quietTimerFired(
        _ record: ExtensionRecord, _ timer: ReferenceWritableKeyPath<ExtensionRecord, (any CoordinatorTimer)?>, after delay: Duration,
        act: () -> Void
    ) {
        guard let quietSince = record.quietSince, record.isQuiet else {
            // Serving: the quiet spell that follows arms a new timer.
            record[keyPath: timer] = nil
            return
        }
        let due = quietSince + delay
        guard clock.now >= due else {
            record[keyPath: timer]?.reschedule(at: due)
            return
        }
        act()
    }

    /// How late an idle or suspend timer may fire, so that the loop can wake once for
    /// several: a tenth of the delay, at most 250 ms (a short delay keeps its meaning).
    static func slack(of delay: Duration) -> Duration {
        min(.milliseconds(250), delay / 10)
    }

    /// Serving: no suspension or idle exit while a request is in flight.
    private func becameActive(_ record: ExtensionRecord) {
        processes.markServing(record.id, true)
        record.quietSince = nil
    }

    /// The run is over: whatever it was doing failed; hosts are told.
    package func runEnded(_ id: String, reason: StopReason) {
        guard let record = records[id] else { return }
        record.startTimer = nil
        record.idleTimer = nil
        record.suspendTimer = nil
        if case .action(_, _, _, let completion) = record.outstanding {
            completion(.failed("the extension ended (\(reason)) before completing"))
        }
        record.abandonOutstandingUpdate(at: clock.now)
        record.outstanding = nil
        if [.idle, .trim, .removed, .changed].contains(reason), !record.queue.isEmpty {
            // Requests that came while the extension was exiting at rest (idle, or trimmed at
            // `pressure.warn`), while the run of an extension removed from the config and
            // configured again was exiting (what waited for that run was answered at the
            // removal), or while `update` stopped a run whose config changed: a new run, of
            // the config now in force, serves them, admitted against memory like any launch.
            dispatch(record)
        } else {
            fail(record, because: "the extension ended (\(reason))")
        }
        onTerminated?(id, reason)
    }
}
