/// A Swift client of extensiond's host socket, for hosts and containing apps.
///
/// This module owns the host's end of `host.sock`: finding the socket, connecting (waiting
/// for a daemon that has not bound it yet), sending ``HostToSupervisor`` messages and
/// reading ``SupervisorToHost`` messages, and waiting for the answer to one request. A
/// containing app uses the same connection for its own requests (`defaults`,
/// `reloadExtensions`, `setHasContent`; docs/PROTOCOL.md §3), and a gallery (a host with
/// `manage = true`) for the user's (`enable`, `addInstance`, `removeInstance`, `arrange`). Message types and their encoding belong to
/// WireProtocol; what a host does with the messages belongs to the host. It uses only the
/// C library, so that hosts stay as lean as extensions.
import HostProtocol

/// Where a host finds `host.sock`.
public enum HostSocket {
    /// The socket of the demo's daemon, used when the environment names none.
    public static let demoPath = "/tmp/extensiond-demo/run/host.sock"

    /// The path in `$EXTENSIOND_HOST_SOCKET` (set by the daemon for the hosts and apps it
    /// launches), or ``demoPath``.
    public static func path(environment: (String) -> String?) -> String {
        guard let path = environment(ExtensionEnvironment.hostSocketVariable), !path.isEmpty else { return demoPath }
        return path
    }
}
