import Glibc

/// Runs the system call `call` (a C call that returns -1 and sets errno on failure) the way
/// every call of the loop and the sockets does: again when a signal interrupted it (`EINTR`),
/// as an error naming `operation` when it failed, and as a trap on `EBADF` or `EFAULT`:
/// a descriptor closed (or closed and reused) behind its owner, or a bad pointer, is a bug
/// that must not go on to touch someone else's file.
@inlinable
package func systemCall<Result: SignedInteger>(
    _ operation: @autoclosure () -> String, _ call: () -> Result
) throws(SystemError) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = errno
        if error == EINTR { continue }
        if error == EBADF || error == EFAULT { descriptorMisused(operation(), errno: error) }
        throw SystemError(operation(), errno: error)
    }
}

/// A system call that cannot fail unless the caller is wrong (a descriptor the loop owns,
/// a value it computed): any failure is a bug, reported with what was attempted.
@inlinable
package func infallibleSystemCall<Result: SignedInteger>(_ operation: @autoclosure () -> String, _ call: () -> Result) -> Result {
    do {
        return try systemCall(operation(), call)
    } catch {
        preconditionFailure("\(error) (cannot fail unless the caller is wrong)")
    }
}

@usableFromInline
func descriptorMisused(_ operation: String, errno: Int32) -> Never {
    preconditionFailure("\(SystemError(operation, errno: errno)): a descriptor was closed behind its owner")
}
