import CLinux
import Glibc
import Sockets

/// The two ends of a pipe or socket pair made for a child: ours, which the daemon reads
/// (or talks through), and the child's, which the spawner places at its fd and the daemon
/// closes after the spawn. Both are close-on-exec and close themselves unless taken.
struct ChildEnds: ~Copyable {
    /// A pipe (the child writes, the daemon reads) or a UNIX stream socket pair.
    enum Kind { case pipe, socketPair }

    let ours: FileDescriptor
    let child: FileDescriptor

    init(_ kind: Kind, _ operation: @autoclosure () -> String) throws(SystemError) {
        var ends: [Int32] = [-1, -1]
        switch kind {
        case .pipe:
            _ = try systemCall(operation()) { ext_pipe_cloexec(&ends) }
        case .socketPair:
            _ = try systemCall(operation()) { socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) }
        }
        ours = FileDescriptor(ends[0])
        child = FileDescriptor(ends[1])
    }
}
