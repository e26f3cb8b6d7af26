/// Counters of memory events in a cgroup since it was created.
public struct MemoryEvents: Equatable, Sendable {
    /// Processes the kernel OOM killer killed in the group
    /// (v2 `memory.events` `oom_kill`, v1 `memory.oom_control` `oom_kill`).
    public var oomKills: UInt64
    /// Times the group hit its hard limit and could not reclaim
    /// (v2 `oom`; `nil` on v1).
    public var ooms: UInt64?
    /// Times usage went over `memory_high` (v2 `high`; `nil` on v1, which has no throttle).
    public var high: UInt64?
    /// Times usage reached the hard limit (v2 `max`, v1 `memory.failcnt`).
    public var max: UInt64?

    /// Creates a set of counters.
    public init(oomKills: UInt64, ooms: UInt64? = nil, high: UInt64? = nil, max: UInt64? = nil) {
        self.oomKills = oomKills
        self.ooms = ooms
        self.high = high
        self.max = max
    }
}
