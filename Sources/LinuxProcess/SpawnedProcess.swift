#if canImport(Glibc)
import Glibc
#endif

/// A child that has successfully exec'ed.
public struct SpawnedProcess: Sendable {
    /// Its pid.
    public var pid: pid_t { descriptor.pid }
    /// Its pidfd: signal it, watch it for exit, reap it.
    public let descriptor: ProcessDescriptor
}
