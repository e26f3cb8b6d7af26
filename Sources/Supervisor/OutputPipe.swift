import EventLoop
import Glibc

/// The read end of a process's stdout/stderr pipe, copied into its ``OutputLog``.
///
/// Each wake-up reads a bounded amount and returns to the loop, which comes back
/// while more is waiting: a process that floods its output gets its turn like every
/// other event source instead of holding the daemon until it stops writing.
final class OutputPipe {
    private let fd: Int32
    private let log: OutputLog
    private var source: EventSource?

    /// Reads of ``buffer`` per wake-up: 256 KiB, a few milliseconds of work.
    private static let readsPerWakeup = 4
    /// Enough to empty a default pipe (64 KiB) several times over at exit.
    private static let readsAtExit = 16
    /// Shared: the loop is single-threaded, one read at a time.
    private static var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Takes ownership of `fd` (made non-blocking) and watches it on `loop`.
    init(loop: EventLoop, fd: Int32, log: OutputLog) throws(SystemError) {
        self.fd = fd
        self.log = log
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        do {
            source = try loop.addIO(fd: fd, events: .readable) { [unowned self] _ in
                self.read(upTo: Self.readsPerWakeup)
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit { close() }

    /// Takes what the process wrote before it ended (bounded, in case something that
    /// holds the pipe still writes), then closes the pipe and the log file.
    func drainAndClose() {
        read(upTo: Self.readsAtExit)
        close()
    }

    private func read(upTo reads: Int) {
        var done = 0
        while source != nil, done < reads {
            let count = Self.buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                Self.buffer.withUnsafeBytes { log.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                done += 1
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 && errno == EAGAIN {
                return
            } else {
                // End of file: every writer is gone.
                return close()
            }
        }
    }

    private func close() {
        guard let source else { return }
        source.cancel()
        self.source = nil
        Glibc.close(fd)
        log.flush()
    }
}
