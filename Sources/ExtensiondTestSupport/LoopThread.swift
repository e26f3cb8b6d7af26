import EventLoop
import Foundation
import Glibc

/// An ``EventLoop`` run on a thread of its own, so that a blocking test client can talk to
/// the sockets it serves; ``sync(_:)`` runs code on the loop's thread and waits for it, as
/// everything that touches the loop must run there.
///
/// A job is posted through a pipe registered last: by the time it runs, the loop has read
/// what the test wrote to its sockets before posting it.
final class LoopThread: @unchecked Sendable {
    let loop: EventLoop
    /// The pipe's read and write ends.
    private let wakeup: Int32
    private let post: Int32
    private var source: EventSource?
    private let lock = NSLock()
    private var job: (() -> Void)?
    private let jobDone = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private var running = false

    /// Call ``start()`` once the loop's sources are registered.
    init(loop: EventLoop) throws {
        self.loop = loop
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TestSupportError("pipe: \(String(cString: strerror(errno)))") }
        (wakeup, post) = (ends[0], ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        source = try loop.addIO(fd: wakeup, events: .readable) { [unowned self] _ in self.runJob() }
    }

    func start() {
        running = true
        Thread { [self] in
            do { _ = try loop.run() } catch { FileHandle.standardError.write(Data("test event loop: \(error)\n".utf8)) }
            stopped.signal()
        }.start()
    }

    /// Ends the loop (after `last` ran on it) and waits for its thread.
    func stop(_ last: @escaping () -> Void) {
        guard running else { return last() }
        sync {
            last()
            source?.cancel()
            source = nil
            loop.exit()
        }
        stopped.wait()
        running = false
    }

    deinit {
        close(wakeup)
        close(post)
    }

    /// Runs `body` on the loop's thread and returns what it returned.
    func sync<T>(_ body: () throws -> T) throws -> T {
        var outcome: Result<T, any Error>?
        withoutActuallyEscaping(body) { body in
            lock.withLock { job = { outcome = Result { try body() } } }
            var one: UInt8 = 1
            _ = write(post, &one, 1)
            jobDone.wait()
        }
        return try outcome!.get()
    }

    /// ``sync(_:)`` for what cannot throw.
    func sync<T>(_ body: () -> T) -> T {
        try! sync { () throws -> T in body() }
    }

    private func runJob() {
        var byte: UInt8 = 0
        _ = read(wakeup, &byte, 1)
        var next = lock.withLock { () -> (() -> Void)? in
            defer { job = nil }
            return job
        }
        guard next != nil else { return }
        next?()
        // Released before the poster goes on: it must not outlive `withoutActuallyEscaping`.
        next = nil
        jobDone.signal()
    }
}
