#if canImport(Glibc)
import Glibc
#endif

/// A child that has successfully exec'ed.
public struct SpawnedProcess: Sendable {
    /// Its pid.
    public var pid: pid_t { descriptor.pid }
    /// Its pidfd: signal it, watch it for exit, reap it.
    public let descriptor: ProcessDescriptor
    /// Whether its processes may move themselves out of their cgroup: they run as root
    /// outside a PID namespace of their own, or as the spawner's own user (who owns the
    /// tree). Under another uid the groups are closed to them; in a namespace of their own
    /// they die with the main process wherever they moved.
    public let mayLeaveItsGroup: Bool
}
