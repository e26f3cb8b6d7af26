import EventLoop
import ExtensiondPolicy
import WireProtocol

/// Executing the refresh engine's actions, and its timer.
extension ExtensionCoordinator {
    func perform(_ record: ExtensionRecord, _ actions: [RefreshAction<EncodedJSON>]) {
        recordShownVersion(record)
        for action in actions {
            switch action {
            case .answer(let answer):
                let outcome = PullOutcome(answer, versionOffset: record.shownVersion.offset)
                for token in answer.pulls {
                    record.statistics.count(answer.delivery)
                    if !answer.isRevalidating { record.revalidations[token] = nil }
                    record.pendingPulls.removeValue(forKey: token)?(outcome)
                }
            case .revalidated(let answer):
                let outcome = PullOutcome(answer, versionOffset: record.shownVersion.offset)
                for token in answer.pulls {
                    record.revalidations.removeValue(forKey: token)?(outcome)
                }
            case .startUpdate(let request):
                record.queue.append(.update(request))
                dispatch(record)
            case .pushSnapshot(let snapshot):
                onPush?(record.id, SupervisorToHost.Snapshot(
                    id: nil, extensionID: record.id, result: .newData, snapshot: snapshot.payload,
                    version: snapshot.version &+ record.shownVersion.offset,
                    ageMs: 0, stale: false))
            case .killForDeadline:
                record.abandonOutstandingUpdate(at: clock.now)
                record.lastResult = ("failed", clock.now)
                if processes.phase(of: record.id) != .notRunning {
                    processes.kill(record.id, reason: .deadline, message: "no result within deadline \(record.spec.refresh.deadline.formatted)")
                }
                record.queue.removeAll { if case .update = $0 { true } else { false } }
            case .armTimer(let instant):
                armRefreshTimer(record, at: instant)
            case .persist:
                writer.changed(record.id)
            case .reloadAnswer:
                break  // read by `reload(_:)`, the app's request
            }
        }
    }

    func armRefreshTimer(_ record: ExtensionRecord, at instant: Instant?) {
        guard let instant else {
            record.refreshTimer = nil
            return
        }
        let deadline = MonotonicInstant(notBefore: instant)
        if let timer = record.refreshTimer {
            timer.reschedule(at: deadline)
        } else {
            record.refreshTimer = clock.timer(at: deadline, accuracy: .milliseconds(50)) { [unowned self, unowned record] in
                // A disabled extension is not refreshed in the background (enabling it re-arms
                // the timer), but an update already in flight still meets its deadline.
                guard record.enabled || record.engine.updateInFlight != nil else { return }
                if let update = record.engine.updateInFlight {
                    // Its result may be waiting unread: then it is answered, and re-armed.
                    self.processes.readPending(record.id)
                    guard record.engine.updateInFlight == update else { return }
                }
                self.perform(record, record.engine.handle(.timerFired, at: self.now, using: &self.random))
            }
        }
    }
}
