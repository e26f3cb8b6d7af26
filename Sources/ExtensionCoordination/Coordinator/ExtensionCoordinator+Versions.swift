/// The versions hosts have seen, kept across restarts (see ``ShownVersion``).
extension ExtensionCoordinator {
    /// Takes the versions shown before the restart and makes sure the file exists, while
    /// the disk has room for it.
    func restoreShownVersion(_ record: ExtensionRecord) {
        let restored = record.highestVersion
        if let saved = store.loadShownVersion(record.id) {
            record.shownVersion = ShownVersion(shown: saved.shown, offset: saved.offset(restoring: restored))
        }
        recordShownVersion(record, always: true)
    }

    /// Records the version about to be shown, before any host sees it.
    func recordShownVersion(_ record: ExtensionRecord, always: Bool = false) {
        let current = record.highestVersion &+ record.shownVersion.offset
        guard current > record.shownVersion.shown || always else { return }
        record.shownVersion.shown = max(current, record.shownVersion.shown)
        do {
            try store.saveShownVersion(record.shownVersion, for: record.id)
        } catch {
            writer.failed(record, "could not record version \(record.shownVersion.shown): \(error)")
        }
    }
}
