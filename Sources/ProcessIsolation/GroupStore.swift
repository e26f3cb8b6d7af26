import DaemonSupport
import EventLoop
import Sockets
import WireProtocol

/// App groups (DESIGN §5): a container directory `<state_dir>/groups/<group>/` shared by
/// an app and its extensions, and a key-value store, the shared defaults, kept in
/// `<state_dir>/defaults/<group>.json`. Every write replaces the file atomically, so a
/// crash leaves the old or the new value, never a torn file.
///
/// A write that fails (a full disk) is refused to whoever asked, recorded as an event
/// (reason `storage`) at the first failure and when writes succeed again, and kept in
/// ``storageErrors`` for `status`.
package final class GroupStore {
    private let stateDirectory: String
    private let events: EventLog
    /// Loaded stores, by group.
    private var cache: [String: [String: JSONValue]] = [:]
    /// Why the last write of a group's defaults failed, until one succeeds.
    package private(set) var storageErrors: [String: String] = [:]
    /// The largest store kept for one group: the defaults are for settings, not data.
    static let maxStoreBytes = 1 << 20

    package init(stateDirectory: String, events: EventLog) {
        self.stateDirectory = stateDirectory
        self.events = events
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

    /// Runs one `defaults` request on `group`.
    package func perform(_ operation: DefaultsOperation, group: String, key: String?, value: JSONValue?) throws(GroupStoreError) -> JSONValue {
        var store = try load(group)
        switch operation {
        case .list:
            return .array(store.keys.sorted().map(JSONValue.string))
        case .get:
            return store[try required(key, for: operation)] ?? .null
        case .remove:
            let key = try required(key, for: operation)
            guard store.removeValue(forKey: key) != nil else { return .null }
            try save(store, group)
            return .null
        case .set:
            let key = try required(key, for: operation)
            guard let value else { throw .missing("value", operation: operation) }
            store[key] = value
            try save(store, group)
            return .null
        }
    }

    private func required(_ key: String?, for operation: DefaultsOperation) throws(GroupStoreError) -> String {
        guard let key, !key.isEmpty else { throw .missing("key", operation: operation) }
        return key
    }

    /// Drops what is cached of `group`'s defaults: its file was moved away.
    package func forget(_ group: String) {
        cache[group] = nil
    }

    private func path(_ group: String) -> String { stateDirectory + "/defaults/" + group + ".json" }

    private func load(_ group: String) throws(GroupStoreError) -> [String: JSONValue] {
        if let cached = cache[group] { return cached }
        guard let bytes = FileSystem.read(path(group)) else { return [:] }
        guard let store = try? JSONCoding.decode([String: JSONValue].self, from: bytes) else {
            throw .unreadable(path(group))
        }
        cache[group] = store
        return store
    }

    private func save(_ store: [String: JSONValue], _ group: String) throws(GroupStoreError) {
        let bytes = JSONValue.object(store).encoded().bytes
        guard bytes.count <= Self.maxStoreBytes else { throw .full(group, limit: Self.maxStoreBytes) }
        do {
            try FileSystem.createDirectories(stateDirectory + "/defaults", mode: 0o750)
            try FileSystem.writeAtomically(bytes, to: path(group))
        } catch {
            let message = "the shared defaults of \(group) could not be saved: \(error)"
            if storageErrors[group] == nil { events.record(.error, nil, reason: "storage", message) }
            storageErrors[group] = message
            throw .storage("\(error)")
        }
        if storageErrors.removeValue(forKey: group) != nil {
            events.record(.cleanup, nil, reason: "storage", "the shared defaults of \(group) are saved again")
        }
        cache[group] = store
    }
}

/// Why a `defaults` request failed.
package enum GroupStoreError: Error, CustomStringConvertible {
    case missing(String, operation: DefaultsOperation)
    case unreadable(String)
    case full(String, limit: Int)
    case storage(String)

    package var description: String {
        switch self {
        case .missing(let field, let operation): "\(operation.rawValue) needs a \(field)"
        case .unreadable(let path): "the shared defaults in \(path) are damaged (not a JSON object); remove the file to start afresh"
        case .full(let group, let limit): "the shared defaults of \(group) would exceed \(limit) bytes"
        case .storage(let message): "could not save the shared defaults: \(message)"
        }
    }
}
