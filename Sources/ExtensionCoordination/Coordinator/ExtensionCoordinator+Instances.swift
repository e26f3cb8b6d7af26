import ExtensiondPolicy
import WireProtocol

/// Instances the user adds and removes (the gallery's `addInstance`, `removeInstance`), and
/// the ones no connected host uses any more, which are freed.
extension ExtensionCoordinator {
    /// Makes every declared mode's slot of instance `name` of widget `id`, with `params` and
    /// the maximum sizes of its place. The widget need not be enabled (adding enables it: the
    /// caller's choice); an existing instance takes the new params.
    package func addInstance(_ id: String, _ name: String, params: JSONValue, placeLimits: [DisplayMode: Size]) throws(RequestRejection) {
        guard let record = records[id] else { throw .unknown(id) }
        guard record.spec.point == .widget else { throw .wrongPoint(id, record.spec.point) }
        for mode in record.modes {
            let slot = try instanceSlot(record, mode: mode, name, added: true)
            slot.isAdded = true
            slot.params = params
            slot.addedPlaceLimit = placeLimits[mode]
            if let limit = placeLimits[mode] {
                slot.maxSize = limit
                slot.placeLimit = limit
            }
        }
    }

    /// Forgets instance `name` of `id`: its snapshots, schedule and queued updates; pulls
    /// waiting for it are answered with `reason`. Whether it existed.
    @discardableResult
    package func removeInstance(_ id: String, _ name: String, because reason: String) -> Bool {
        guard let record = records[id] else { return false }
        let removed = record.removeSlots(of: name)
        guard !removed.isEmpty else { return false }
        for slot in removed { slot.refreshTimer = nil }
        record.queue.removeAll { if case .update(_, let key) = $0 { key.instance == name } else { false } }
        record.modeChanged = record.modeChanged.filter { $0.instance != name }
        answerWaitingPulls(record, removed, because: reason)
        return true
    }

    /// Whether `id` has a slot of instance `name` already.
    package func hasInstance(_ id: String, _ name: String) -> Bool {
        records[id]?.slots.keys.contains { $0.instance == name } ?? false
    }

    /// A `preferredSize` within the slot's place (the extension is told once per run in its
    /// events when it asked for more).
    func fitted(_ preferred: Size, _ slot: ModeSlot, _ record: ExtensionRecord) -> Size {
        guard let limit = slot.placeLimit, preferred.width > limit.width || preferred.height > limit.height else { return preferred }
        if !record.warnedOversize {
            record.warnedOversize = true
            events.record(
                .error, record.id, reason: "preferred-size",
                "preferredSize \(preferred.width)x\(preferred.height) is larger than its place allows "
                    + "(\(limit.width)x\(limit.height) in mode \(slot.mode.rawValue)); clamped (said once)")
        }
        return Size(width: min(preferred.width, limit.width), height: min(preferred.height, limit.height))
    }
}
