import ExtensiondPolicy

/// The versions hosts have seen, kept across restarts (see ``ShownVersion``).
extension ExtensionCoordinator {
    /// How many versions one write of the `.version` file reserves: an update shows a new
    /// version without a write of its own, and a crash skips at most this many.
    static let reservedVersions: UInt64 = 1024

    /// Takes the versions shown before the restart and makes sure the file exists, while
    /// the disk has room for it.
    func restoreShownVersion(_ record: ExtensionRecord) {
        let restored = record.highestVersion
        if let saved = store.loadShownVersion(record.id) {
            record.shownVersion = ShownVersion(shown: saved.shown, offset: saved.offset(restoring: restored))
        }
        recordShownVersion(record, always: true)
    }

    /// Records the version about to be shown, before any host sees it: the file holds a
    /// reservation above it, written again only when versions reach it.
    func recordShownVersion(_ record: ExtensionRecord, always: Bool = false) {
        let current = record.highestVersion &+ record.shownVersion.offset
        guard current > record.shownVersion.shown || always else { return }
        record.shownVersion.shown = max(current, record.shownVersion.shown)
        guard record.shownVersion.shown > record.reservedVersion || always else { return }
        let reservation = record.shownVersion.shown.saturatingAdd(Self.reservedVersions)
        saveShownVersion(record, ShownVersion(shown: reservation, offset: record.shownVersion.offset))
    }

    /// Replaces each reservation with the exact version shown: after a clean stop the
    /// saved snapshots come back under the versions hosts saw.
    func saveExactShownVersions() {
        for record in records.values where record.reservedVersion > record.shownVersion.shown {
            saveShownVersion(record, record.shownVersion)
        }
    }

    private func saveShownVersion(_ record: ExtensionRecord, _ saved: ShownVersion) {
        do {
            try store.saveShownVersion(saved, for: record.id)
            record.reservedVersion = saved.shown
        } catch {
            record.reservedVersion = 0
            writer.failed(record, "could not record version \(record.shownVersion.shown): \(error)")
        }
    }
}
