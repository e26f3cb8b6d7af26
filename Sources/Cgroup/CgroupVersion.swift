/// Which cgroup interface a tree uses; shown in the daemon's status.
public enum CgroupVersion: String, Equatable, Sendable, CustomStringConvertible {
    /// The memory controller mounted as its own hierarchy (hybrid systems),
    /// with an optional pids hierarchy.
    case v1
    /// The unified hierarchy with the memory controller.
    case v2

    /// `v1` or `v2`.
    public var description: String { rawValue }
}
