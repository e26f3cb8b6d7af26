import EventLoop
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
    package func pull(
        _ id: String, mode: DisplayMode, maxSize: Size, placeLimit: Size? = nil, instance: String? = nil, params: JSONValue? = nil,
        revalidated: ((PullOutcome) -> Void)? = nil,
        completion: @escaping (PullOutcome) -> Void
    ) throws(RequestRejection) {
        try pull(
            id, mode: mode, maxSize: maxSize, placeLimit: placeLimit, instance: instance, params: params, answeredAtOnce: completion,
            later: { PullWaiters(revalidated: revalidated, completion: completion) })
    }

    /// A pull as above, answered through `answeredAtOnce` when the cache answers it before
    /// this returns; `later` makes what waits for an answer only when one must wait.
    package func pull(
        _ id: String, mode: DisplayMode, maxSize: Size, placeLimit: Size?, instance: String?, params: JSONValue?,
        answeredAtOnce: (PullOutcome) -> Void, later: () -> PullWaiters
    ) throws(RequestRejection) {
        let record = try usableRecord(id, point: .widget)
        guard let own = record.slots[SlotKey(mode: mode, instance: nil)] else { throw .undeclaredMode(id, mode.rawValue) }
        let slot = try instance.map { name throws(RequestRejection) in try instanceSlot(record, mode: mode, name) } ?? own
        if let params { slot.params = params }
        if instance == nil {
            if mode != record.lastPulledMode { record.modeChanged.insert(slot.key) }
            record.lastPulledMode = mode
        }
        // A place's maximum is the update's `maxSize` (docs/PROTOCOL.md, "Places").
        slot.placeLimit = placeLimit ?? slot.addedPlaceLimit
        slot.maxSize = slot.placeLimit ?? maxSize
        let requestedAt = clock.now
        record.lastUsed = requestedAt
        // A fresh snapshot, the usual pull: the engine would only answer it from the cache.
        if let state = slot.engine.freshState(at: requestedAt.policyInstant) {
            let answer = PullAnswer(pulls: [], delivery: .cached, result: .cached, state: state)
            return answerAtOnce(answer, record, slot, requestedAt: requestedAt, answeredAtOnce)
        }
        let waiters = later()
        nextPullToken += 1
        let token = PullToken(nextPullToken)
        // The engine only decides; nothing is answered before `perform`.
        let actions = run(.pull(token, waits: waiters.revalidated == nil), record, slot)
        if actions.count == 1, case .answer(let answer) = actions[0], answer.pulls.count == 1, answer.pulls[0] == token,
            !answer.isRevalidating
        {
            return answerAtOnce(answer, record, slot, requestedAt: requestedAt, answeredAtOnce)
        }
        let completion = waiters.completion
        slot.pendingPulls[token] = { [unowned self, unowned record] outcome in
            record.statistics.pullLatency.record(self.clock.now.since(requestedAt))
            completion(outcome)
        }
        if let revalidated = waiters.revalidated { slot.revalidations[token] = revalidated }
        perform(record, slot, actions, updateFirst: true)
    }

    /// A pull answered from the cache at once needs nothing kept for later: what `perform`
    /// does for it, without its closures in the slot's tables.
    private func answerAtOnce(
        _ answer: PullAnswer<EncodedJSON>, _ record: ExtensionRecord, _ slot: ModeSlot, requestedAt: MonotonicInstant,
        _ completion: (PullOutcome) -> Void
    ) {
        recordShownVersion(record)
        record.statistics.count(answer.delivery)
        record.statistics.pullLatency.record(clock.now.since(requestedAt))
        completion(pullOutcome(of: answer, record, slot))
    }

    /// `supervisorctl refresh`: an update now, outside the budget, in the mode last pulled
    /// (else the first declared). Only widgets have
    /// content to update; actions and shares answer `begin` only.
    /// Checks every id before refreshing any, so that a bad one refreshes none.
    package func refresh(_ ids: [String]) throws(RequestRejection) {
        var selected: [ExtensionRecord] = []
        for id in ids { selected.append(try usableRecord(id, point: .widget)) }
        for record in selected {
            if let slot = record.currentSlot { handle(.manualRefresh, record, slot) }
        }
    }

    /// A host's `subscribe` to instance `name` of widget `id`: its first declared mode's
    /// slot exists from now on, with `params` (when given) for its updates; nothing is
    /// updated until a pull. Returns that mode, the one the host is pushed.
    package func subscribe(_ id: String, instance name: String, params: JSONValue?) throws(RequestRejection) -> DisplayMode? {
        let record = try usableRecord(id, point: .widget)
        guard let mode = record.firstMode else { return nil }
        let slot = try instanceSlot(record, mode: mode, name)
        if let params { slot.params = params }
        return mode
    }

    /// Instances hosts may make up of an extension at once (each mode of each holds a
    /// snapshot); the ones users add are bounded by ``Gallery/maxAddedInstances``.
    static let maxInstances = 64

    /// The slot of `mode` of the instance `name`, made at its first pull with a fresh
    /// engine: its snapshot, freshness and timeline are its own, its budget the extension's.
    func instanceSlot(_ record: ExtensionRecord, mode: DisplayMode, _ name: String, added: Bool = false) throws(RequestRejection) -> ModeSlot {
        let key = SlotKey(mode: mode, instance: name)
        if let slot = record.slots[key] { return slot }
        let known = record.slots.keys.contains { $0.instance == name }
        guard known || added || record.madeUpInstanceCount < Self.maxInstances else {
            throw .tooManyInstances(record.id, Self.maxInstances)
        }
        let slot = ModeSlot(
            mode: mode, instance: name,
            engine: RefreshEngine(parameters: RefreshParameters(record.spec.refresh), now: now), preferredSize: nil,
            wallOffsetMs: wallOffsetMs)
        // Its siblings' params until a host gives its own.
        slot.params = record.slots.values.first { $0.instance == name }?.params
        record.add(slot)
        if !record.isShown(instance: name) { handle(.visibilityChanged(shown: false), record, slot) }
        if record.isHeldForMemory { handle(.memoryHold(true), record, slot) }
        return slot
    }

    /// Whether some host shows widget `id` itself, or its instance `instance`: hidden, their
    /// scheduled refreshes wait (in every mode) and cost nothing; shown again, one that came
    /// due meanwhile runs now.
    package func setShown(_ shown: Bool, _ id: String, instance: String?) {
        guard let record = records[id], record.isShown(instance: instance) != shown else { return }
        // Only instances that exist: a host naming made-up ones must not grow the set.
        if let instance, !record.slots.keys.contains(where: { $0.instance == instance }) { return }
        if let instance {
            if shown { record.hiddenInstances.remove(instance) } else { record.hiddenInstances.insert(instance) }
        } else {
            record.isShown = shown
        }
        for slot in record.orderedSlots where slot.instance == instance {
            handle(.visibilityChanged(shown: shown), record, slot)
        }
    }

    /// Memory admission (``MemoryAdmission``) holds widget `id`'s scheduled refreshes back
    /// (in every mode and instance, spending nothing) or releases them: one that came due
    /// meanwhile runs now.
    package func setMemoryHold(_ held: Bool, _ id: String) {
        guard let record = records[id], record.isHeldForMemory != held else { return }
        record.isHeldForMemory = held
        for slot in record.orderedSlots { handle(.memoryHold(held), record, slot) }
    }

    /// A host's `perform` on an action or share extension.
    package func perform(_ id: String, items: [Item], completion: @escaping (ActionOutcome) -> Void) throws(RequestRejection) {
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
