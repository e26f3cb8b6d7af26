/// System calls on sockets and their errors, for the daemon and its command-line client.
///
/// This module owns `SystemError` and the blocking and non-blocking set-up of UNIX and TCP
/// sockets. It must not know the event loop: `supervisorctl` uses it without one.
import Glibc

/// A failed system call: what was attempted and the errno it gave.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was attempted, e.g. `bind /run/extensiond/control.sock`.
    public var operation: String
    public var errno: Int32

    public init(_ operation: String, errno: Int32 = Glibc.errno) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        "\(operation): \(String(cString: strerror(errno)))"
    }
}
