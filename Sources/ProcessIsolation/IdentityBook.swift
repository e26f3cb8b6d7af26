import DaemonSupport
import EventLoop
import ExtensiondPolicy
import Glibc
import Sockets
import WireProtocol

/// The uid of each app (shared by its extensions) and the gid of each app group, from
/// `supervisor.user_range`, persisted in `<state_dir>/identities.json` so that an app keeps
/// its uid, and its files stay its own, across restarts. The file is written beside the
/// loop (``DurableRecord``); an id is used by a launch only once the file holding it is on
/// disk, so that a crash never hands it to another app.
package final class IdentityBook {
    private var allocator: IdentityAllocator
    private let record: DurableRecord
    /// Ids handed out whose assignment is not on disk yet.
    private var unwritten: Set<UInt32> = []

    /// Where an id stands against the disk.
    package enum Durability {
        case written, writing
        case failed(SystemError)
    }

    /// Reads back the saved assignments; a damaged file is an error event and is replaced
    /// (ids are re-derived from the names, mostly the same ones).
    init(stateDirectory: String, range: ClosedRange<UInt32>, files: DurableFiles, clock: any CoordinatorClock, events: EventLog) {
        let path = stateDirectory + "/identities.json"
        let bytes = FileSystem.read(path)
        var saved: [String: UInt32] = [:]
        if let bytes {
            if let decoded = try? JSONCoding.decode([String: UInt32].self, from: bytes) {
                saved = decoded
            } else {
                events.record(.error, nil, "\(path) cannot be read back (not a JSON object of ids); ids are allocated afresh")
            }
        }
        record = DurableRecord(path: path, mode: 0o644, content: bytes, files: files, clock: clock, events: events)
        allocator = IdentityAllocator(range: range, assignments: saved)
    }

    /// The uid (and primary gid) of app `id`.
    func uid(ofApp id: String) throws(IsolationError) -> UInt32 {
        try allocate("app:" + id, what: "app \(id)")
    }

    /// The gid of app group `name`.
    func gid(ofGroup name: String) throws(IsolationError) -> UInt32 {
        try allocate("group:" + name, what: "app group \(name)")
    }

    /// Sets the ids of app `id` and its `groups` aside under names no app or group has, so
    /// that a new app with that id gets new ones (``RemovedApps``); `done` runs once that is
    /// on disk, or with why not.
    package func setAside(app id: String, groups: [String], then done: @escaping DurableFiles.Completion) {
        for key in Self.keys(app: id, groups: groups) { allocator.rename(key, to: Self.setAsidePrefix + key) }
        save(then: done)
    }

    /// Frees the ids set aside for app `id` and its `groups`.
    package func release(app id: String, groups: [String]) {
        for key in Self.keys(app: id, groups: groups) { allocator.release(Self.setAsidePrefix + key) }
        save()
    }

    /// Calls `body` once `identities.json` holds its newest content, or failed to.
    package func whenWritten(then body: @escaping DurableFiles.Completion) {
        record.whenWritten(then: body)
    }

    /// Whether `ids` are on disk; `ready` runs once they are when they are being written.
    func durability(of ids: [UInt32], ready: @escaping () -> Void) -> Durability {
        guard ids.contains(where: unwritten.contains) else { return .written }
        guard record.isWriting else { return record.failure.map { .failed($0) } ?? .written }
        record.whenWritten { _ in ready() }
        return .writing
    }

    private static let setAsidePrefix = "removed:"

    private static func keys(app id: String, groups: [String]) -> [String] {
        ["app:" + id] + groups.map { "group:" + $0 }
    }

    private func allocate(_ key: String, what: String) throws(IsolationError) -> UInt32 {
        if let known = allocator.assignments[key] { return known }
        guard let id = allocator.id(for: key, taken: Self.existsOnSystem) else {
            throw .noFreeID(what, allocator.range)
        }
        unwritten.insert(id)
        save()
        return id
    }

    private func save(then done: DurableFiles.Completion? = nil) {
        let handedOut = unwritten
        record.save((try? JSONCoding.encode(allocator.assignments)) ?? []) { [weak self] error in
            if error == nil { self?.unwritten.subtract(handedOut) }
            done?(error)
        }
    }

    /// A user or group the system already has (in /etc/passwd, /etc/group or NSS).
    private static func existsOnSystem(_ id: UInt32) -> Bool {
        getpwuid(id) != nil || getgrgid(id) != nil
    }
}
