import DaemonSupport
import EventLoop
import Sockets
import WireProtocol

/// App groups (DESIGN §5): a container directory `<state_dir>/groups/<group>/` shared by
/// an app and its extensions, and a key-value store, the shared defaults, kept in
/// `<state_dir>/defaults/<group>.json`. Every write replaces the file atomically, so a
/// crash leaves the old or the new value, never a torn file.
///
/// Writes are coalesced: those a group gets within ``coalescingInterval`` are saved by one
/// write of the file, and each is answered once that write is on disk (or failed). The
/// write (fsync, rename) runs off the loop (``BlockingWork``), one at a time per group;
/// writes accepted meanwhile wait for the next. Reads answer from what is on disk. Each
/// peer's writes are bounded by ``DefaultsWriteBudget``.
///
/// A write that fails (a full disk) is refused to whoever asked, recorded as an event
/// (reason `storage`) at the first failure and when writes succeed again, and kept in
/// ``storageErrors`` for `status`.
package final class GroupStore {
    package typealias Reply = (Result<JSONValue, GroupStoreError>) -> Void

    private let stateDirectory: String
    private let events: EventLog
    private let clock: any CoordinatorClock
    private let work: any BlockingWork
    /// The stores as saved, by group (loaded at first use).
    private var saved: [String: DefaultsContent] = [:]
    /// Writes accepted and not yet saved, by group.
    private var pending: [String: PendingWrites] = [:]
    /// The store being saved, by group, while its write runs.
    private var saving: [String: DefaultsContent] = [:]
    /// What waits for the running save of a group to end, by group (``finishSaves(of:then:)``).
    private var whenSaved: [String: [() -> Void]] = [:]
    private var saveTimer: (any CoordinatorTimer)?
    private var budget = DefaultsWriteBudget()
    /// Why the last write of a group's defaults failed, until one succeeds.
    package private(set) var storageErrors: [String: String] = [:]
    /// The largest store kept for one group: the defaults are for settings, not data.
    static let maxStoreBytes = 1 << 20
    /// How long a write waits for others to be saved with it.
    static let coalescingInterval = Duration.milliseconds(5)

    package init(stateDirectory: String, events: EventLog, clock: any CoordinatorClock, work: any BlockingWork = InlineWork()) {
        self.stateDirectory = stateDirectory
        self.events = events
        self.clock = clock
        self.work = work
    }

    /// The container directory of `group`, created if missing: `root:<gid>` with mode 2770,
    /// so that only the processes with the group's gid enter it, and files made in it are
    /// the group's. Without a `gid` (the daemon is not root) it is the daemon's, 0770.
    func container(_ group: String, gid: UInt32?) throws(SystemError) -> String {
        let path = stateDirectory + "/groups/" + group
        try FileSystem.ownedDirectory(stateDirectory + "/groups", owner: nil, mode: 0o711)
        try FileSystem.ownedDirectory(path, owner: gid.map { (0, $0) }, mode: gid == nil ? 0o770 : 0o2770)
        return path
    }

    /// Runs one `defaults` request of `writer` on `group`; `reply` is called once, at once
    /// for a read or a refusal, after the save for a write.
    package func perform(
        _ operation: DefaultsOperation, group: String, key: String?, value: JSONValue?,
        by writer: DefaultsWriter, reply: @escaping Reply
    ) {
        do throws(GroupStoreError) {
            let current = try load(group)
            switch operation {
            case .list:
                return reply(.success(.array(current.values.keys.sorted().map(JSONValue.string))))
            case .get:
                return reply(.success(current[try required(key, for: operation)] ?? .null))
            case .remove:
                try write(nil, at: try required(key, for: operation), of: group, by: writer, reply: reply)
            case .set:
                let key = try required(key, for: operation)
                guard let value else { throw .missing("value", operation: operation) }
                try write(value, at: key, of: group, by: writer, reply: reply)
            }
        } catch {
            reply(.failure(error))
        }
    }

    /// Saves every accepted write now, waits for the saves, and answers their writers (at a
    /// clean stop).
    package func saveEverything() {
        while !pending.isEmpty || !saving.isEmpty {
            saveAccepted()
            work.finish()
        }
    }

    /// Calls `body` on the loop once no save of `groups` runs (before their files are moved
    /// away): writes accepted and not saved yet are refused rather than written back for
    /// the next owner; a save under way is waited for through the loop, and its writers are
    /// answered as usual (it is on disk, and moves with the file).
    package func finishSaves(of groups: [String], then body: @escaping () -> Void) {
        for group in groups { refuseAccepted(group) }
        afterSaves(of: groups, then: body)
    }

    private func afterSaves(of groups: [String], then body: @escaping () -> Void) {
        guard let running = groups.first(where: { saving[$0] != nil }) else { return body() }
        whenSaved[running, default: []].append { [unowned self] in afterSaves(of: groups, then: body) }
    }

    private func refuseAccepted(_ group: String) {
        for reply in pending.removeValue(forKey: group)?.waiting ?? [] {
            reply(.failure(.storage("the group \(group) was removed before the write was saved")))
        }
    }

    /// Starts the save of each group with accepted writes, except those whose save runs.
    private func saveAccepted() {
        saveTimer = nil
        for group in pending.keys.sorted() where saving[group] == nil {
            let writes = pending.removeValue(forKey: group)!
            saving[group] = writes.content
            let (directory, path, bytes) = (stateDirectory + "/defaults", path(group), writes.content.encoded)
            work.run(
                { () -> String? in
                    do {
                        try FileSystem.createDirectories(directory, mode: 0o750)
                        try FileSystem.writeAtomically(bytes, to: path)
                        return nil
                    } catch {
                        return "\(error)"
                    }
                },
                then: { [unowned self] failure in saved(group, writes, failure: failure) })
        }
    }

    private func saved(_ group: String, _ writes: PendingWrites, failure: String?) {
        saving[group] = nil
        let outcome: Result<JSONValue, GroupStoreError>
        if let failure {
            let message = "the shared defaults of \(group) could not be saved: \(failure)"
            if storageErrors[group] == nil { events.record(.error, nil, reason: "storage", message) }
            storageErrors[group] = message
            outcome = .failure(.storage(failure))
            // Writes accepted since were made on top of the failed ones: made again on what is saved.
            pending[group]?.rebase(on: saved[group] ?? DefaultsContent())
        } else {
            if storageErrors.removeValue(forKey: group) != nil {
                events.record(.cleanup, nil, reason: "storage", "the shared defaults of \(group) are saved again")
            }
            saved[group] = writes.content
            outcome = .success(.null)
        }
        for reply in writes.waiting { reply(outcome) }
        if pending[group] != nil { scheduleSave() }
        for body in whenSaved.removeValue(forKey: group) ?? [] { body() }
    }

    private func scheduleSave() {
        if saveTimer == nil {
            saveTimer = clock.timer(after: Self.coalescingInterval) { [unowned self] in saveAccepted() }
        }
    }

    private func write(
        _ value: JSONValue?, at key: String, of group: String, by writer: DefaultsWriter,
        reply: @escaping Reply
    ) throws(GroupStoreError) {
        var writes: PendingWrites
        if let accepted = pending[group] { writes = accepted } else { writes = PendingWrites(content: try current(group)) }
        if value == nil && writes.content[key] == nil && writes.waiting.isEmpty { return reply(.success(.null)) }
        guard writes.content.encodedBytes(setting: key, to: value) <= Self.maxStoreBytes else {
            throw .full(group, limit: Self.maxStoreBytes)
        }
        if writer != .control && !budget.take(writer, at: clock.now.policyInstant) {
            throw .overBudget(writer)
        }
        writes.set(key, to: value, reply: reply)
        pending[group] = writes
        scheduleSave()
    }

    private func required(_ key: String?, for operation: DefaultsOperation) throws(GroupStoreError) -> String {
        guard let key, !key.isEmpty else { throw .missing("key", operation: operation) }
        return key
    }

    /// Drops what is known of `group`'s defaults: its file was moved away with its removed
    /// app (after ``finishSaves(of:then:)``).
    package func forget(_ group: String) {
        saved[group] = nil
        refuseAccepted(group)
    }

    /// The store as it will be once the running save (if any) is done.
    private func current(_ group: String) throws(GroupStoreError) -> DefaultsContent {
        if let beingSaved = saving[group] { return beingSaved }
        return try load(group)
    }

    private func path(_ group: String) -> String { stateDirectory + "/defaults/" + group + ".json" }

    private func load(_ group: String) throws(GroupStoreError) -> DefaultsContent {
        if let cached = saved[group] { return cached }
        guard let bytes = FileSystem.read(path(group)) else { return DefaultsContent() }
        guard let values = try? JSONCoding.decode([String: JSONValue].self, from: bytes) else {
            throw .unreadable(path(group))
        }
        let content = DefaultsContent(values)
        saved[group] = content
        return content
    }
}

/// The writes a group accepted that wait for a save: the store they make, each key's
/// last value (`nil`: removed), and who waits.
private struct PendingWrites {
    var content: DefaultsContent
    private var changes: [String: JSONValue?] = [:]
    private(set) var waiting: [GroupStore.Reply] = []

    init(content: DefaultsContent) {
        self.content = content
    }

    mutating func set(_ key: String, to value: JSONValue?, reply: @escaping GroupStore.Reply) {
        content[key] = value
        changes.updateValue(value, forKey: key)
        waiting.append(reply)
    }

    /// The same changes made on `base` instead.
    mutating func rebase(on base: DefaultsContent) {
        content = base
        for (key, value) in changes { content[key] = value }
    }
}

/// Why a `defaults` request failed.
package enum GroupStoreError: Error, CustomStringConvertible {
    case missing(String, operation: DefaultsOperation)
    case unreadable(String)
    case full(String, limit: Int)
    case storage(String)
    case overBudget(DefaultsWriter)

    package var description: String {
        switch self {
        case .missing(let field, let operation): "\(operation.rawValue) needs a \(field)"
        case .unreadable(let path): "the shared defaults in \(path) are damaged (not a JSON object); remove the file to start afresh"
        case .full(let group, let limit): "the shared defaults of \(group) would exceed \(limit) bytes"
        case .storage(let message): "could not save the shared defaults: \(message)"
        case .overBudget(let writer):
            "\(writer) writes the shared defaults too often: at most \(DefaultsWriteBudget.writesPerSecond) sets or removes "
                + "per second (\(DefaultsWriteBudget.burst) at once); retry later"
        }
    }
}
