import DaemonSupport
import ExtensiondPolicy
import Sockets
import WireProtocol

/// Writes changed refresh records to the ``ExtensionStore`` behind the updates that
/// changed them: one write (two fsyncs, beside the loop) per extension per ``delay``, and
/// all at once at shutdown. A record that cannot be written (a full disk) is tried again at
/// the next interval; its first failure is an event, and `status` shows it until a write
/// succeeds. The `setHasContent` declarations are written at once, and retried the same way.
final class RecordWriter {
    /// How long a changed record may wait to be written.
    static let delay = Duration.seconds(1)

    private let store: ExtensionStore
    private let clock: any CoordinatorClock
    private let events: EventLog
    /// The extension whose record to write, `nil` once it is gone.
    private let current: (String) -> ExtensionRecord?
    /// Every extension's `setHasContent` declaration, and whether a change is unwritten.
    private let hasContent: () -> [String: Bool]
    private var hasContentUnsaved = false
    /// Records changed since they were last written, and the timer that writes them.
    private var unsaved: Set<String> = []
    private var timer: (any CoordinatorTimer)?

    init(
        store: ExtensionStore, clock: any CoordinatorClock, events: EventLog,
        hasContent: @escaping () -> [String: Bool], current: @escaping (String) -> ExtensionRecord?
    ) {
        self.store = store
        self.clock = clock
        self.events = events
        self.hasContent = hasContent
        self.current = current
    }

    /// `record`'s extension changed its `setHasContent` declaration: written now, or
    /// with its record once the disk takes it.
    func hasContentChanged(_ record: ExtensionRecord) {
        hasContentUnsaved = true
        saveHasContent(record)
    }

    private func saveHasContent(_ record: ExtensionRecord) {
        guard hasContentUnsaved else { return }
        hasContentUnsaved = false
        store.saveHasContent(hasContent()) { [weak self] error in
            guard let self, let error else { return }
            hasContentUnsaved = true
            failed(record, "could not save hasContent: \(error)")
            changed(record.id)
        }
    }

    /// The record of `id` changed: write it within ``delay``.
    func changed(_ id: String) {
        unsaved.insert(id)
        guard timer == nil else { return }
        timer = clock.timer(after: Self.delay, accuracy: .milliseconds(250)) { [unowned self] in
            self.timer = nil
            self.flush()
        }
    }

    /// Writes every record changed since the last write, now (the writes run beside the loop).
    func flush() {
        timer = nil
        let ids = unsaved
        unsaved.removeAll()
        let now = clock.now.policyInstant
        for id in ids.sorted() {
            guard let record = current(id) else { continue }
            saveHasContent(record)
            store.saveModes(record.savedModes, for: id, now: now) { [weak self] error in
                guard let self else { return }
                guard let error else { return recovered(record) }
                failed(record, "could not save the snapshot: \(error)")
                changed(id)
            }
        }
    }

    /// A write of `record`'s state failed (the record, or its shown version).
    func failed(_ record: ExtensionRecord, _ message: String) {
        if record.storageError == nil { events.record(.error, record.id, reason: "storage", message) }
        record.storageError = message
    }

    private func recovered(_ record: ExtensionRecord) {
        guard record.storageError != nil else { return }
        record.storageError = nil
        events.record(.cleanup, record.id, reason: "storage", "its state is saved again")
    }
}
