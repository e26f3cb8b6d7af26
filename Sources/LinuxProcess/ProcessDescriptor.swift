import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// An owned pidfd: a race-free handle on one process (signals never reach a
/// recycled pid). Readable when the process exits, so the event loop can watch
/// it; closed when the descriptor goes away.
public final class ProcessDescriptor: Sendable {
    /// The pidfd (close-on-exec).
    public let fileDescriptor: Int32
    /// The pid it refers to, for logs and /proc.
    public let pid: pid_t

    /// Takes ownership of `fileDescriptor`, a pidfd of `pid`.
    public init(adopting fileDescriptor: Int32, pid: pid_t) {
        self.fileDescriptor = fileDescriptor
        self.pid = pid
    }

    /// Opens a pidfd for a running process (`pidfd_open`).
    public static func open(pid: pid_t) throws(ProcessError) -> ProcessDescriptor {
        let fd = ext_pidfd_open(pid)
        guard fd >= 0 else { throw .systemCall("pidfd_open", subject: "pid \(pid)", errno: errno) }
        return ProcessDescriptor(adopting: fd, pid: pid)
    }

    /// Sends `signal` to the process (`pidfd_send_signal`).
    public func send(signal: Int32) throws(ProcessError) {
        guard ext_pidfd_send_signal(fileDescriptor, signal) == 0 else {
            throw .systemCall("pidfd_send_signal \(signal) to", subject: "pid \(pid)", errno: errno)
        }
    }

    /// Frees the memory of the process, which must have been sent SIGKILL, now and in
    /// the caller's time (`process_mrelease`, Linux 5.15+), instead of when the kernel
    /// gets round to its exit: what lmkd does after each kill. Never fails: what
    /// happened is the answer, since the exit frees the memory anyway.
    public func releaseMemory() -> MemoryRelease {
        if ext_process_mrelease(fileDescriptor) == 0 { return .released }
        return errno == ENOSYS ? .unsupported : .notReleased(errno: errno)
    }

    /// Whether the process has exited (the pidfd is readable), without reaping it.
    public var hasExited: Bool {
        var watched = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&watched, 1, 0) == 1
    }

    /// Reaps the process if it has exited; `nil` while it runs. Only for a
    /// child of this process.
    public func exitStatusIfExited() throws(ProcessError) -> ExitStatus? {
        try wait(blocking: false)
    }

    /// Blocks until the process (a child of this one) exits, and reaps it.
    public func waitForExit() throws(ProcessError) -> ExitStatus {
        // A blocking wait returns only once the child has exited.
        guard let status = try wait(blocking: true) else {
            throw .systemCall("waitid", subject: "pid \(pid)", errno: ECHILD)
        }
        return status
    }

    private func wait(blocking: Bool) throws(ProcessError) -> ExitStatus? {
        var code: Int32 = 0
        var status: Int32 = 0
        switch ext_pidfd_wait(fileDescriptor, blocking ? 0 : 1, &code, &status) {
        case 0:
            return code == CLD_EXITED
                ? .exited(code: status)
                : .killed(signal: status, dumpedCore: code == CLD_DUMPED)
        case 1:
            return nil
        default:
            throw .systemCall("waitid", subject: "pid \(pid)", errno: errno)
        }
    }

    deinit {
        close(fileDescriptor)
    }
}
