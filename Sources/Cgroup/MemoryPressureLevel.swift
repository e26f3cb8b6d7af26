/// A cgroup v1 `memory.pressure_level` notification level: the kernel's
/// reclaim effort at which the eventfd fires.
public enum MemoryPressureLevel: String, Equatable, Sendable {
    case low
    case medium
    case critical
}
