#if canImport(Glibc)
import Glibc
#endif

/// The numeric user, group and supplementary groups a child switches to,
/// resolved from names in the parent (the child must not touch NSS).
public struct Credentials: Equatable, Sendable {
    public let uid: uid_t
    public let gid: gid_t
    public let groups: [gid_t]

    /// `nil` when neither user nor group is given: the child keeps the spawner's.
    ///
    /// A numeric user with a numeric group (the identities the daemon allocates) needs no
    /// user database: no NSS lookup on every launch of an app or extension.
    public static func resolve(user: String?, group: String?) throws(SpawnError) -> Credentials? {
        guard user != nil || group != nil else { return nil }
        if let uid = user.flatMap({ uid_t($0) }), let gid = group.flatMap({ gid_t($0) }) {
            return Credentials(uid: uid, gid: gid, groups: [gid])
        }
        let account = try user.map { (name) throws(SpawnError) in try lookUpUser(name) }
        let explicitGroup = try group.map { (name) throws(SpawnError) in try lookUpGroup(name) }
        guard let account else {
            let gid = explicitGroup ?? getgid()
            return Credentials(uid: getuid(), gid: gid, groups: [gid])
        }
        guard let gid = explicitGroup ?? account.gid else {
            // Never fall back to the spawner's (root's) group for an unknown uid.
            throw SpawnError(.resolveGroup, "of user \(account.name)", reason: "a numeric user without a passwd entry needs an explicit group")
        }
        return Credentials(uid: account.uid, gid: gid, groups: groupList(of: account.name, primary: gid))
    }

    private struct Account {
        let name: String
        let uid: uid_t
        /// The primary group; unknown for a numeric user without a passwd entry.
        let gid: gid_t?
    }

    private static func lookUpUser(_ name: String) throws(SpawnError) -> Account {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = getpwnam_r(name, &entry, &buffer, buffer.count, &found)
        if let found {
            return Account(name: String(cString: found.pointee.pw_name), uid: found.pointee.pw_uid, gid: found.pointee.pw_gid)
        }
        if let numeric = uid_t(name) {
            return Account(name: name, uid: numeric, gid: nil)
        }
        if status != 0 {
            throw SpawnError(.resolveUser, name.debugDescription, errno: status)
        }
        throw SpawnError(.resolveUser, name.debugDescription, reason: "no such user")
    }

    private static func lookUpGroup(_ name: String) throws(SpawnError) -> gid_t {
        var entry = group()
        var found: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = getgrnam_r(name, &entry, &buffer, buffer.count, &found)
        if let found {
            return found.pointee.gr_gid
        }
        if let numeric = gid_t(name) {
            return numeric
        }
        if status != 0 {
            throw SpawnError(.resolveGroup, name.debugDescription, errno: status)
        }
        throw SpawnError(.resolveGroup, name.debugDescription, reason: "no such group")
    }

    /// The user's supplementary groups from the group database, with `primary` first.
    private static func groupList(of user: String, primary: gid_t) -> [gid_t] {
        var count: Int32 = 64
        while true {
            var groups = [gid_t](repeating: 0, count: Int(count))
            let previous = count
            if getgrouplist(user, primary, &groups, &count) >= 0 {
                return Array(groups.prefix(Int(count)))
            }
            // Too small: `count` now holds the number needed.
            if count <= previous { count = previous * 2 }
        }
    }
}
