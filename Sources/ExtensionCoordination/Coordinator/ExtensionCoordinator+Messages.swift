import ExtensiondPolicy
import WireProtocol

/// The extension protocol (docs/PROTOCOL.md): what a run sends, checked against what
/// it was asked. A message out of turn is a violation and kills the run.
extension ExtensionCoordinator {
    package func received(_ message: ExtensionToSupervisor, from id: String) {
        guard let record = records[id] else { return }
        let isReady = if case .ready = message { true } else { false }
        let phase = processes.phase(of: id)
        if phase == .starting && !isReady {
            return violation(id, "\(message.type) before ready")
        }
        switch message {
        case .ready(let ready):
            guard phase == .starting else { return violation(id, "ready sent twice") }
            guard ready.protocol == ExtensionToSupervisor.protocolVersion else {
                return violation(id, "protocol \(ready.protocol) is not supported (this daemon speaks \(ExtensionToSupervisor.protocolVersion))")
            }
            record.startTimer = nil
            let latency = processes.markReady(id)
            events.record(.ready, id, "ready after \(latency?.formatted ?? "?")")
            settle(record)
        case .result(let result):
            guard case .update(let requestID, let update, let startedAt) = record.outstanding, requestID == result.id else {
                return violation(id, "result for id \(result.id.rawValue), which is not the outstanding update")
            }
            var outcome: UpdateResult<EncodedJSON>
            var answered = result.result
            switch result.result {
            case .newData:
                guard let snapshot = result.encodedSnapshot else { return violation(id, "newData without a snapshot") }
                if let refusal = refusedCard(result.snapshotToCheck, timeline: result.timeline ?? []) {
                    events.record(.error, id, reason: "card", refusal)
                    outcome = .failed(refusal)
                    answered = .failed
                    break
                }
                let timeline = (result.timeline ?? []).map {
                    TimelineSnapshot(payload: $0.snapshot.encoded(), date: instant(of: $0.date, offsetMs: wallOffsetMs))
                }
                outcome = .newData(snapshot, timeline: timeline)
            case .noData:
                outcome = .noData
            case .failed:
                outcome = .failed(result.error ?? "the extension reported failed")
            }
            record.statistics.count(answered)
            record.outstanding = nil
            record.lastResult = (answered.rawValue, clock.now)
            record.statistics.updateLatency.record(clock.now.since(startedAt))
            let hint = result.reload.map { policyHint($0) } ?? .atEnd
            // A mode dropped by a reconfiguration while its update ran has no one to tell.
            if let largest = result.largestMode, largest != record.largestMode {
                record.largestMode = largest
                onGalleryChanged?()
            }
            if let slot = record.slots[update.key] {
                if answered == .newData {
                    slot.preferredSize = result.preferredSize.map { fitted($0, slot, record) }
                    slot.wallOffsetMs = wallOffsetMs
                }
                handle(.updateFinished(update.id, outcome, reload: hint), record, slot)
                finishExecution(record, slot, answering: requestID, result: SnapshotResult(rawValue: answered.rawValue) ?? .failed)
            }
            settle(record)
        case .complete(let complete):
            finishAction(record, complete.id, .completed(complete.items), answeredBy: message.type)
        case .cancel(let cancel):
            finishAction(record, cancel.id, .failed(cancel.error), answeredBy: message.type)
        case .setHasContent(let value):
            setHasContent(value.value, for: id)
        case .openURL(let request):
            processes.send(.openURLResult(.init(id: request.id, success: onOpenURL(request.url, id))), to: id)
        case .defaults(let request):
            groupAccess.perform(request, forAppOf: record.spec.app, by: .extension(id)) { [processes] outcome in
                processes.send(.defaultsResult(.init(id: request.id, outcome: outcome)), to: id)
            }
        }
    }

    /// Why a snapshot or timeline entry that is an Adaptive Card is refused (CardShape's
    /// bounds), naming which; `nil` when every card keeps them. Other snapshots pass.
    /// `snapshot` is `nil` when it is known not to be a card.
    private func refusedCard(_ snapshot: JSONValue?, timeline: [TimelineEntry]) -> String? {
        if let snapshot, CardShape.isCard(snapshot), let problem = CardShape.problem(with: snapshot) {
            return "card refused (snapshot): \(problem)"
        }
        for (index, entry) in timeline.enumerated() where CardShape.isCard(entry.snapshot) {
            if let problem = CardShape.problem(with: entry.snapshot) {
                return "card refused (timeline entry \(index)): \(problem)"
            }
        }
        return nil
    }

    /// A `complete` or `cancel` ends the outstanding `begin`; for anything else it is a violation.
    private func finishAction(_ record: ExtensionRecord, _ answered: RequestID, _ outcome: ActionOutcome, answeredBy type: String) {
        guard case .action(let requestID, _, _, let completion) = record.outstanding, requestID == answered else {
            return violation(record.id, "\(type) for id \(answered.rawValue), which is not the outstanding begin")
        }
        record.outstanding = nil
        completion(outcome)
        settle(record)
    }

    /// The engine's reload hint; a wall-clock date becomes an instant of the monotonic clock.
    private func policyHint(_ hint: WireProtocol.ReloadHint) -> ExtensiondPolicy.ReloadHint {
        switch hint {
        case .atEnd: return .atEnd
        case .never: return .never
        case .after(let date):
            return .after(instant(of: date, offsetMs: wallOffsetMs))
        }
    }

    /// A wall-clock date as an instant of the monotonic clock, `offsetMs` apart; a date
    /// past the instants that exist (about 292 years either way) is clamped to the last one
    /// (docs/PROTOCOL.md, "Conventions").
    private func instant(of date: UnixTime, offsetMs: Int64) -> Instant {
        Instant(nanoseconds: date.millisecondsSince1970.saturatingSubtract(offsetMs).saturatingMultiply(1_000_000))
    }

    /// Ends the run at its first violation; its timers cannot kill it a second time (and
    /// the kill closes its channel: nothing it sent after the violation is acted on).
    private func violation(_ id: String, _ message: String) {
        records[id]?.startTimer = nil
        processes.kill(id, reason: .protocolViolation, message: "protocol violation: \(message)")
    }
}
