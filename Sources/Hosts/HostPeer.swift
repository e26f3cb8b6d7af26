import ExtensiondConfig
import Glibc

/// Who is on the other end of a `host.sock` connection, known by the cgroup of the
/// peer's pid (SO_PEERCRED): a supervised host or app is that host or app, a supervised
/// extension is refused, and anything else is an external host (docs/SECURITY.md).
package enum HostPeer: Equatable, CustomStringConvertible {
    case host(String)
    case app(String)
    /// An extension's process: it speaks to the supervisor on fd 3 only, never as a host.
    case extensionProcess(String)
    case external(pid_t)

    package var description: String {
        switch self {
        case .host(let id): "host \(id)"
        case .app(let id): "app \(id)"
        case .extensionProcess(let id): "extension \(id)"
        case .external(let pid): "external host (pid \(pid))"
        }
    }

    /// Why this peer may not pull, subscribe to or perform `extensionID` of `app`, or `nil`:
    /// an app is a host of its own extensions only; a host with `extensions` of those only.
    /// `app` is looked up only for an app (an external host's pull needs no lookup).
    func refusal(of extensionID: String, ownedBy app: @autoclosure () -> String?, hosts: [String: HostSpec]) -> String? {
        switch self {
        case .app(let id):
            let app = app()
            guard app != id else { return nil }
            return "\(self) may use only its own extensions; \(extensionID) belongs to app \(app ?? "none")"
        case .host(let id):
            guard let allowed = hosts[id]?.extensions, !allowed.contains(extensionID) else { return nil }
            return "\(self) may use only the extensions of hosts.\(id).extensions; \(extensionID) is not one"
        default:
            return nil
        }
    }

    /// The pid of the connected UNIX socket's peer.
    static func pid(of fd: Int32) -> pid_t? { credentials(of: fd)?.pid }

    /// The user of the connected UNIX socket's peer.
    static func uid(of fd: Int32) -> UInt32? { credentials(of: fd)?.uid }

    private static func credentials(of fd: Int32) -> (pid: Int32, uid: UInt32, gid: UInt32)? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return credentials
    }
}
