#if canImport(Glibc)
import Glibc
#endif

/// A cgroup operation that failed, naming the file or rule and the reason.
public enum CgroupError: Error, CustomStringConvertible, Equatable, Sendable {
    /// A system call on a cgroup file failed, e.g.
    /// `write "33554432" to /sys/fs/cgroup/x/memory.max: Device or resource busy`.
    case systemCall(String, path: String, errno: Int32)
    /// A cgroup or kernel file did not have the expected form.
    case malformed(path: String, content: String, expected: String)
    /// The backend in use has no such feature; `alternative` says what to use instead.
    case unsupported(String, version: CgroupVersion, alternative: String)
    /// Neither a v2 hierarchy with the memory controller nor a v1 memory hierarchy was found.
    case noMemoryController(String)
    /// The kernel refused a PSI trigger, e.g. a window that is not a multiple
    /// of 2 s without CAP_SYS_RESOURCE.
    case triggerRefused(rule: String, path: String, errno: Int32)
    /// Processes were still in the cgroup when the wait ended.
    case stillPopulated(path: String, processes: [pid_t])
    /// A group id that cannot be a cgroup directory name.
    case invalidIdentifier(String, reason: String)
    /// Another process owns the tree: it is in the tree's `supervisor` leaf.
    case inUse(path: String, processes: [pid_t])

    /// What failed, where, and why.
    public var description: String {
        switch self {
        case let .systemCall(call, path, errno):
            "\(call) \(path): \(Self.reason(errno))"
        case let .malformed(path, content, expected):
            "\(path): expected \(expected), found \(content.debugDescription)"
        case let .unsupported(feature, version, alternative):
            "\(feature) is not available with cgroup \(version); \(alternative)"
        case let .noMemoryController(detail):
            "no cgroup memory controller: \(detail)"
        case let .triggerRefused(rule, path, errno):
            "PSI trigger \(rule.debugDescription) refused by \(path): \(Self.reason(errno))"
                + (errno == EINVAL ? " (the window must be 0.5-10 s, and a multiple of 2 s without CAP_SYS_RESOURCE)" : "")
        case let .stillPopulated(path, processes):
            "\(path) still holds processes \(processes.map(String.init).joined(separator: " "))"
        case let .inUse(path, processes):
            "\(path) holds \(processes.map(String.init).joined(separator: " ")): another extensiond owns this cgroup tree "
                + "(give each daemon its own supervisor.cgroup, or leave it unset)"
        case let .invalidIdentifier(id, reason):
            "cgroup name \(id.debugDescription): \(reason)"
        }
    }

    private static func reason(_ errno: Int32) -> String {
        String(cString: strerror(errno))
    }
}
