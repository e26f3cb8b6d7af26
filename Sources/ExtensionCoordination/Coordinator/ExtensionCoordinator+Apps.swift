import ExtensiondPolicy

/// The containing app's requests (the caller checked that the extensions are its own).
extension ExtensionCoordinator {
    /// `reloadExtensions`: each widget spends a token of its refresh budget and updates now
    /// (in the mode last pulled),
    /// or right after the update in flight; without a token it is refused (WidgetKit's
    /// `reloadTimelines`). Checks every id before reloading any, so that a bad one reloads none.
    package func reload(_ ids: [String]) throws(RequestRejection) -> (scheduled: [String], refused: [String]) {
        var seen: Set<String> = []
        let unique = ids.filter { seen.insert($0).inserted }
        let selected = try unique.map { id throws(RequestRejection) in try usableRecord(id, point: .widget) }
        var scheduled: [String] = [], refused: [String] = []
        for record in selected {
            guard let slot = record.currentSlot else { continue }
            let actions = run(.reload, record, slot)
            for case .reloadAnswer(let answer) in actions {
                if answer == .scheduled { scheduled.append(record.id) } else { refused.append(record.id) }
            }
            perform(record, slot, actions)
        }
        return (scheduled, refused)
    }
}
