/// Where a group's freezing stands (v1 `freezer.state`; v2 `cgroup.freeze` and the
/// `frozen` line of `cgroup.events`).
public enum FreezerState: String, Sendable, Equatable {
    /// Its tasks run.
    case thawed
    /// Asked to freeze; some task has not stopped yet.
    case freezing
    /// Every task is stopped: none is scheduled, none uses CPU.
    case frozen
}
