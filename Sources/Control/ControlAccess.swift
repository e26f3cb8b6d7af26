import ControlProtocol
import ExtensiondConfig
import Glibc

/// Who may do what on `control.sock` (docs/SECURITY.md): root and members of
/// `supervisor.admin_group` run every command; members of `supervisor.control_group` run
/// the reading ones; nobody else runs any. A daemon that is not root is its user's: that
/// user runs every command too, except from the processes the daemon runs (which share
/// its uid only because it cannot switch users). The peer is known by SO_PEERCRED and
/// SO_PEERGROUPS, as the kernel saw it at connect time.
package struct ControlAccess {
    /// A peer's identity at connect time.
    package struct Peer: CustomStringConvertible {
        var pid: pid_t
        var uid: uid_t
        var groups: Set<gid_t>
        /// It is one of the processes the daemon runs (known by its cgroup).
        var isSupervised = false

        package var description: String { "uid \(uid) (pid \(pid)\(isSupervised ? ", a supervised process" : ""))" }
    }

    let controlGroup: (name: String, gid: gid_t)?
    let adminGroup: (name: String, gid: gid_t)?
    /// The daemon's own uid when it is not root.
    let owner: uid_t?

    /// Resolves the configured group names (numeric ids are accepted); an unknown group
    /// admits nobody. `daemonUser` is the daemon's effective uid.
    package init(_ settings: SupervisorSettings, daemonUser: uid_t = geteuid()) {
        controlGroup = settings.controlGroup.map { ($0, Self.gid(of: $0) ?? gid_t.max) }
        adminGroup = settings.adminGroup.map { ($0, Self.gid(of: $0) ?? gid_t.max) }
        owner = daemonUser == 0 ? nil : daemonUser
    }

    /// The group `control.sock` belongs to, so that members can connect at all.
    var socketGroup: gid_t? {
        [controlGroup, adminGroup].compactMap { $0?.gid }.first { $0 != gid_t.max }
    }

    /// Whether `request` only reads: status, stats, events, pressure, pull, tail, version,
    /// pid, avail, maintail, reread, `defaults get` and `defaults list`.
    static func isReading(_ request: ControlRequest) -> Bool {
        switch request {
        case .status, .stats, .events, .pressure, .pull, .tail, .version, .pid, .avail, .maintail, .reread: true
        case .defaults(let request): request.operation == .get || request.operation == .list
        case .start, .stop, .restart, .signal, .clear, .enable, .disable, .refresh, .perform, .open, .reload, .update, .purge: false
        }
    }

    /// `nil` when `peer` may run `request`, else the rule that refuses it, in words.
    func refusal(of request: ControlRequest, by peer: Peer) -> String? {
        if peer.uid == 0 || adminGroup.map({ peer.groups.contains($0.gid) }) == true { return nil }
        if peer.uid == owner && !peer.isSupervised { return nil }
        let admins =
            "root" + (owner.map { ", the daemon's user (uid \($0), outside the processes it runs)" } ?? "")
            + " or members of supervisor.admin_group" + (adminGroup.map { " (\($0.name))" } ?? " (not set)")
        if Self.isReading(request) {
            if controlGroup.map({ peer.groups.contains($0.gid) }) == true { return nil }
            let readers = "supervisor.control_group" + (controlGroup.map { " (\($0.name))" } ?? " (not set)")
            return "permission denied: \(request.command.rawValue) needs \(admins) or \(readers); \(peer) is neither"
        }
        return "permission denied: \(request.command.rawValue) changes the daemon and needs \(admins); \(peer) is not"
    }

    /// The credentials of the peer of the connected UNIX socket `fd`.
    static func peer(of fd: Int32) -> Peer? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc hides it without _GNU_SOURCE).
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        var groups = [gid_t](repeating: 0, count: 256)
        var groupsLength = socklen_t(groups.count * MemoryLayout<gid_t>.size)
        let count =
            getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, &groups, &groupsLength) == 0
            ? Int(groupsLength) / MemoryLayout<gid_t>.size : 0
        return Peer(pid: credentials.pid, uid: credentials.uid, groups: Set(groups.prefix(count)).union([credentials.gid]))
    }

    private static func gid(of name: String) -> gid_t? {
        var entry = group()
        var found: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        if getgrnam_r(name, &entry, &buffer, buffer.count, &found) == 0, let found { return found.pointee.gr_gid }
        return gid_t(name)
    }
}
