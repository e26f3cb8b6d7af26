import Glibc

/// An open file descriptor that closes itself when it goes, unless ``take()`` hands it to a
/// new owner (a connection, a child's standard output). Cleanup paths have nothing to forget.
public struct FileDescriptor: ~Copyable {
    /// The descriptor's number, for system calls; the descriptor stays owned.
    public let rawValue: Int32

    /// Takes ownership of `rawValue`.
    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Opens a descriptor with `call`, a system call returning it (see ``systemCall(_:_:)``).
    package init(_ operation: @autoclosure () -> String, _ call: () -> Int32) throws(SystemError) {
        self.init(try systemCall(operation(), call))
    }

    /// Hands the descriptor to a new owner, who closes it.
    public consuming func take() -> Int32 {
        let fd = rawValue
        discard self
        return fd
    }

    /// Closes the descriptor now.
    public consuming func close() {
        Self.close(take())
    }

    deinit { Self.close(rawValue) }

    /// Closes `fd`, owned by the caller. Linux closes the descriptor even when `close` is
    /// interrupted, so `EINTR` is not retried (a retry could close a reused number).
    public static func close(_ fd: Int32) {
        guard Glibc.close(fd) != 0, errno == EBADF else { return }
        descriptorMisused("close fd \(fd)", errno: EBADF)
    }
}
