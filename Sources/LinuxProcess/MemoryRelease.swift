#if canImport(Glibc)
import Glibc
#endif

/// What ``ProcessDescriptor/releaseMemory()`` did.
public enum MemoryRelease: Equatable, Sendable, CustomStringConvertible {
    /// The kernel freed the process's memory in the call (or it was freed already).
    case released
    /// The kernel has no `process_mrelease` (before Linux 5.15, or a filter denies it):
    /// the memory goes when the process exits, as before.
    case unsupported
    /// The call failed: `EINVAL` when the process is not dying or shares its memory with
    /// a live process, `ESRCH` when its exit was complete already, `EAGAIN` when the kernel could
    /// not take the memory's lock.
    case notReleased(errno: Int32)

    /// `released`, `unsupported`, or `not released (<reason>)`: the kill record's field.
    public var description: String {
        switch self {
        case .released: "released"
        case .unsupported: "unsupported"
        case .notReleased(let errno): "not released (\(String(cString: strerror(errno))))"
        }
    }
}
