import ExtensiondConfig
import ExtensiondPolicy
import WireProtocol

/// Requests from hosts and `supervisorctl`.
extension ExtensionCoordinator {
    /// A host's pull: answered from the cache, joined to an update in flight, or
    /// starting an update (DESIGN §4). `completion` runs exactly once.
    ///
    /// With `revalidated`, an expired snapshot is answered at once (`expired`) while an
    /// update replaces it, and `revalidated` gets that update's outcome; without it (the
    /// host's `wait: true`, the CLI) the answer waits for the update.
    func pull(_ id: String, mode: DisplayMode, maxSize: Size, revalidated: ((PullOutcome) -> Void)? = nil,
              completion: @escaping (PullOutcome) -> Void) throws(RequestRejection) {
        let record = try usableRecord(id, point: .widget)
        guard let slot = record.slots[mode] else { throw .undeclaredMode(id, mode.rawValue) }
        record.lastPulledMode = mode
        slot.maxSize = maxSize
        record.lastUsed = clock.now
        nextPullToken += 1
        let token = PullToken(nextPullToken)
        let requestedAt = clock.now
        slot.pendingPulls[token] = { [unowned self, unowned record] outcome in
            record.statistics.pullLatency.record(self.clock.now.since(requestedAt))
            completion(outcome)
        }
        if let revalidated { slot.revalidations[token] = revalidated }
        handle(.pull(token, waits: revalidated == nil), record, slot)
    }

    /// `supervisorctl refresh`: an update now, outside the budget, in the mode last pulled
    /// (else the first declared). Only widgets have
    /// content to update; actions and shares answer `begin` only.
    /// Checks every id before refreshing any, so that a bad one refreshes none.
    func refresh(_ ids: [String]) throws(RequestRejection) {
        var selected: [ExtensionRecord] = []
        for id in ids { selected.append(try usableRecord(id, point: .widget)) }
        for record in selected {
            if let slot = record.currentSlot { handle(.manualRefresh, record, slot) }
        }
    }

    /// Whether some host shows widget `id`: hidden, its scheduled refreshes wait (in every
    /// mode) and cost nothing; shown again, one that came due meanwhile runs now.
    func setShown(_ shown: Bool, _ id: String) {
        guard let record = records[id], record.isShown != shown else { return }
        record.isShown = shown
        for slot in record.orderedSlots { handle(.visibilityChanged(shown: shown), record, slot) }
    }

    /// A host's `perform` on an action or share extension.
    func perform(_ id: String, items: [Item], completion: @escaping (ActionOutcome) -> Void) throws(RequestRejection) {
        let record = try usableRecord(id, point: nil)
        guard record.spec.point != .widget else { throw .wrongPoint(id, record.spec.point) }
        if let problem = ActivationRule(record.spec.activation, types: types).problem(with: items) {
            throw .itemsRejected(id, problem)
        }
        record.lastUsed = clock.now
        record.queue.append(.action(items: items, completion: completion))
        dispatch(record)
    }
}
