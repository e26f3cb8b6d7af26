/// What a group may use, applied together by ``ControlGroup/apply(_:)``; `nil` leaves a
/// limit unset (removed where it was set).
public struct CgroupLimits: Sendable, Equatable {
    /// Hard limit: the kernel OOM-kills inside the group past it (v2 `memory.max`, v1
    /// `memory.limit_in_bytes`).
    public var memoryMax: UInt64?
    /// Soft limit: v2 `memory.high` throttles above it; v1 has no throttle and gets
    /// `memory.soft_limit_in_bytes`, reclaimed first under global pressure.
    public var memoryHigh: UInt64?
    /// Protection from reclaim: v2 `memory.low`; v1 has nothing like it and ignores it.
    public var memoryLow: UInt64?
    /// `pids.max`; refused as unsupported on v1 without a pids hierarchy.
    public var pidsMax: Int?
    /// CPU time per period (v2 `cpu.max`, v1 `cpu.cfs_quota_us` and `cpu.cfs_period_us`);
    /// refused as unsupported on v1 without a cpu hierarchy.
    public var cpuQuota: CPUQuota?
    /// Share of contended CPU, 1 to 10000 (v2 `cpu.weight`, v1 `cpu.shares` = weight · 1024 / 100).
    public var cpuWeight: Int?

    /// `microseconds` of CPU time in each period of `periodMicroseconds`.
    public struct CPUQuota: Sendable, Equatable {
        public var microseconds: Int
        public var periodMicroseconds: Int

        public init(microseconds: Int, periodMicroseconds: Int) {
            self.microseconds = microseconds
            self.periodMicroseconds = periodMicroseconds
        }
    }

    public init(
        memoryMax: UInt64? = nil, memoryHigh: UInt64? = nil, memoryLow: UInt64? = nil, pidsMax: Int? = nil,
        cpuQuota: CPUQuota? = nil, cpuWeight: Int? = nil
    ) {
        self.memoryMax = memoryMax
        self.memoryHigh = memoryHigh
        self.memoryLow = memoryLow
        self.pidsMax = pidsMax
        self.cpuQuota = cpuQuota
        self.cpuWeight = cpuWeight
    }
}
