import CLinux
import EventLoop
import Glibc
import LinuxProcess
import Sockets

/// Runs a helper command (mkfs of a disk volume) to its end, for at most a bounded time,
/// on the thread beside the loop that makes volumes.
enum BoundedCommand {
    /// The most of the command's stderr kept for the error.
    private static let stderrLimit = 4096

    /// Runs `executable` (looked up in the default search path) with `arguments`, stdin and
    /// stdout on /dev/null, and waits for it; one still running after `timeout` is killed.
    ///
    /// - Throws: ``SystemError`` naming the command line, how it ended and its stderr,
    ///   unless it exited with status 0.
    static func run(_ executable: String, _ arguments: [String], timeout: Duration) throws(SystemError) {
        let command = ([executable] + arguments).joined(separator: " ")
        var ends: [Int32] = [-1, -1]
        // Close-on-exec from the start: the loop's thread spawns processes meanwhile.
        guard ext_pipe_cloexec(&ends) == 0 else { throw SystemError("\(command): pipe") }
        defer { close(ends[0]) }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        let child: SpawnedProcess
        do {
            defer { close(ends[1]) }
            child = try Spawner.spawn(SpawnRequest(executable: executable, arguments: arguments, standardError: ends[1]))
        } catch {
            throw SystemError("\(command): \(error)", errno: error.errno)
        }
        var output: [UInt8] = []
        let deadline = MonotonicInstant.current() + timeout
        var exit: ExitStatus?
        var stderrOpen = true
        while exit == nil {
            let left = deadline.since(.current())
            guard left > .zero else { break }
            // A negative fd is skipped: stderr at its end would wake poll at once.
            var watched = [
                pollfd(fd: child.descriptor.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stderrOpen ? ends[0] : -1, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&watched, 2, Int32(left.wholeMicroseconds / 1000 + 1))
            if stderrOpen { stderrOpen = read(ends[0], into: &output) }
            exit = try? child.descriptor.exitStatusIfExited()
        }
        guard let exit else {
            try? child.descriptor.send(signal: SIGKILL)
            _ = try? child.descriptor.waitForExit()
            throw SystemError("\(command): no answer within \(timeout)", errno: ETIMEDOUT)
        }
        if stderrOpen { _ = read(ends[0], into: &output) }
        guard exit != .exited(code: 0) else { return }
        let said = String(decoding: output, as: UTF8.self).split(separator: "\n").joined(separator: "; ")
        throw SystemError("\(command): \(exit)\(said.isEmpty ? "" : ": " + said)", errno: EIO)
    }

    /// Appends what the non-blocking `fd` holds, up to the limit; false at its end.
    private static func read(_ fd: Int32, into output: inout [UInt8]) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            guard count > 0 else { return count < 0 && (errno == EAGAIN || errno == EINTR) }
            output += buffer.prefix(min(count, max(0, stderrLimit - output.count)))
        }
    }
}
