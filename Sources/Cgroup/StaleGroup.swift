#if canImport(Glibc)
import Glibc
#endif

/// A group left behind by a previous daemon that was cleaned up at start.
public struct StaleGroup: Equatable, Sendable {
    /// Its subtree.
    public let kind: CgroupKind
    /// Its directory name (the host, app or extension id).
    public let id: String
    /// The processes that were still running in it and were killed.
    public let killedProcesses: [pid_t]
    /// Why it could not be removed, if it could not.
    public let failure: CgroupError?

    /// Creates a record of a cleaned group.
    public init(kind: CgroupKind, id: String, killedProcesses: [pid_t], failure: CgroupError?) {
        self.kind = kind
        self.id = id
        self.killedProcesses = killedProcesses
        self.failure = failure
    }
}
