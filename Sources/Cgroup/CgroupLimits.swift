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

    public init(memoryMax: UInt64? = nil, memoryHigh: UInt64? = nil, memoryLow: UInt64? = nil, pidsMax: Int? = nil) {
        self.memoryMax = memoryMax
        self.memoryHigh = memoryHigh
        self.memoryLow = memoryLow
        self.pidsMax = pidsMax
    }
}
