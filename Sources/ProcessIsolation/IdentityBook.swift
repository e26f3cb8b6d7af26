import DaemonSupport
import EventLoop
import ExtensiondPolicy
import Glibc
import WireProtocol

/// The uid of each app (shared by its extensions) and the gid of each app group, from
/// `supervisor.user_range`, persisted in `<state_dir>/identities.json` so that an app keeps
/// its uid, and its files stay its own, across restarts.
package final class IdentityBook {
    private var allocator: IdentityAllocator
    private let path: String

    /// Reads back the saved assignments; a damaged file is reported through `damaged` and
    /// replaced (ids are re-derived from the names, mostly the same ones).
    init(stateDirectory: String, range: ClosedRange<UInt32>, damaged: (String) -> Void) {
        path = stateDirectory + "/identities.json"
        var saved: [String: UInt32] = [:]
        if let bytes = FileSystem.read(path) {
            if let decoded = try? JSONCoding.decode([String: UInt32].self, from: bytes) {
                saved = decoded
            } else {
                damaged("\(path) cannot be read back (not a JSON object of ids); ids are allocated afresh")
            }
        }
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
    /// that a new app with that id gets new ones (``RemovedApps``).
    package func setAside(app id: String, groups: [String]) throws(IsolationError) {
        for key in Self.keys(app: id, groups: groups) { allocator.rename(key, to: Self.setAsidePrefix + key) }
        try save()
    }

    /// Frees the ids set aside for app `id` and its `groups`.
    package func release(app id: String, groups: [String]) throws(IsolationError) {
        for key in Self.keys(app: id, groups: groups) { allocator.release(Self.setAsidePrefix + key) }
        try save()
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
        try save()
        return id
    }

    private func save() throws(IsolationError) {
        do {
            try FileSystem.writeAtomically((try? JSONCoding.encode(allocator.assignments)) ?? [], to: path, mode: 0o644)
        } catch {
            throw .storage("\(error)")
        }
    }

    /// A user or group the system already has (in /etc/passwd, /etc/group or NSS).
    private static func existsOnSystem(_ id: UInt32) -> Bool {
        getpwuid(id) != nil || getgrgid(id) != nil
    }
}
