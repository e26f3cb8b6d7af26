#if canImport(Glibc)
import Glibc
#endif

/// A failure observing or signalling a process, naming the call and its subject.
public enum ProcessError: Error, CustomStringConvertible, Equatable, Sendable {
    /// A system call failed, e.g. `pidfd_send_signal pid 42: No such process`.
    case systemCall(String, subject: String, errno: Int32)
    /// A kernel file did not have the expected form.
    case malformed(path: String, expected: String)

    /// The call, its subject and the reason.
    public var description: String {
        switch self {
        case let .systemCall(call, subject, errno):
            "\(call) \(subject): \(String(cString: strerror(errno)))"
        case let .malformed(path, expected):
            "\(path): expected \(expected)"
        }
    }
}
