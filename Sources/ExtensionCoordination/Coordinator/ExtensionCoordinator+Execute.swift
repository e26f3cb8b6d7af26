import ExtensiondPolicy
import WireProtocol

/// `Action.Execute` (docs/PROTOCOL.md §6): a tap on a card's button reaches the widget as an
/// `execute` in place of its next update, which spends a token of the refresh budget as an
/// app's reload does, starts now (or right after the update in flight), launches the widget
/// if needed and meets the `deadline`; its result is the card's new content.
extension ExtensionCoordinator {
    package func execute(
        _ id: String, verb: String, data: JSONValue, mode: DisplayMode, maxSize: Size, instance: String?,
        environment: RenderEnvironment, completion: @escaping (PullOutcome) -> Void
    ) throws(RequestRejection) {
        let record = try usableRecord(id, point: .widget)
        guard let own = record.slots[SlotKey(mode: mode, instance: nil)] else { throw .undeclaredMode(id, mode.rawValue) }
        let slot = try instance.map { name throws(RequestRejection) in try instanceSlot(record, mode: mode, name) } ?? own
        guard slot.execution == nil else { throw .executeInFlight(id) }
        record.environment = record.environment.updated(by: environment)
        slot.maxSize = maxSize
        record.lastUsed = clock.now
        let actions = run(.reload, record, slot)
        if actions.contains(where: { if case .reloadAnswer(.refused) = $0 { true } else { false } }) {
            perform(record, slot, actions)
            throw .noBudget(id)
        }
        slot.execution = PendingExecution(verb: verb, data: data, completion: completion)
        perform(record, slot, actions)
    }

    /// The request to send for the queued update of `key`: the slot's execution, once.
    func updateMessage(
        _ requestID: RequestID, _ request: UpdateRequest, _ key: SlotKey, _ record: ExtensionRecord,
        modeChanged: Bool
    ) -> SupervisorToExtension {
        let slot = record.slots[key]
        let maxSize = slot?.maxSize ?? Size(width: 320, height: 160)
        if let slot, let execution = slot.execution, execution.sentAs == nil {
            slot.execution?.sentAs = requestID
            return .execute(
                .init(
                    id: requestID, verb: execution.verb, data: execution.data, mode: key.mode, maxSize: maxSize,
                    instance: key.instance, params: slot.params, environment: record.environment))
        }
        return .update(
            .init(
                id: requestID, mode: key.mode, maxSize: maxSize, reason: WireProtocol.UpdateReason(request.reason),
                instance: key.instance, params: slot?.params, modeChanged: modeChanged, environment: record.environment))
    }

    /// The execution sent as `requestID` is over: its host gets the slot's snapshot now.
    func finishExecution(_ record: ExtensionRecord, _ slot: ModeSlot, answering requestID: RequestID?, result: SnapshotResult) {
        guard let execution = slot.execution, execution.sentAs != nil, requestID == nil || execution.sentAs == requestID else { return }
        slot.execution = nil
        let state = slot.engine.state(at: now)
        var outcome = PullOutcome(
            result: result, delivery: .updated, state: state, versionOffset: record.shownVersion.offset,
            mode: slot.mode, preferredSize: slot.preferredSize, instance: slot.instance)
        outcome.date = state.snapshot?.timelineDate.map { wallDate(of: $0, slot) }
        execution.completion(outcome)
    }

    /// The run ended or could not start: every execution waiting or sent fails.
    func failExecutions(_ record: ExtensionRecord) {
        for slot in record.slots.values {
            guard let execution = slot.execution else { continue }
            if execution.sentAs == nil { slot.execution?.sentAs = RequestID(rawValue: 0) }
            finishExecution(record, slot, answering: nil, result: .failed)
        }
    }
}

/// An `execute` waiting for its update's turn, then for its result.
struct PendingExecution {
    var verb: String
    var data: JSONValue
    var completion: (PullOutcome) -> Void
    /// The id it was sent with; `nil` while it waits.
    var sentAs: RequestID?
}

extension ExtensionCoordinator {
    /// What a host said it renders for reaches the widget's next updates; a change after the
    /// first (the user turned dark mode on) refreshes what it shows now.
    package func environmentChanged(_ environment: RenderEnvironment, of id: String) {
        guard let record = records[id], record.enabled else { return }
        let updated = record.environment.updated(by: environment)
        guard updated != record.environment else { return }
        let isChange = !record.environment.isEmpty
        record.environment = updated
        // Two hosts of different schemes must not make the widget refresh each other's turn
        // without end: at most one such refresh per pull_cooldown.
        let now = clock.now
        guard isChange, record.environmentRefreshedAt.map({ now.since($0) >= record.spec.refresh.pullCooldown }) ?? true else { return }
        record.environmentRefreshedAt = now
        for slot in record.orderedSlots where slot.engine.record.snapshot != nil && record.isShown(instance: slot.instance) {
            handle(.manualRefresh, record, slot)
        }
    }
}
