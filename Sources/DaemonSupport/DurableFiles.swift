import Glibc
import Sockets

/// Durable writes of whole files (``FileSystem/writeAtomically(_:to:mode:)``: a crash
/// leaves the old or the new content) beside the loop, so that a disk that holds `fsync`
/// never holds the loop.
///
/// Writes of one file run one at a time, in the order given, and coalesce: those given while
/// one runs wait, and only the newest of them is written after it. Each completion runs on
/// the loop once the file holds its content or a newer one, or with the error of the write
/// that carried it. Writes of different files run in the order they were started; a write
/// that must follow another is given in that one's completion.
package final class DurableFiles {
    package typealias Completion = (SystemError?) -> Void

    private struct Pending {
        var bytes: [UInt8]
        var mode: mode_t
        var waiting: [Completion]
    }

    /// A file whose write runs: who waits for it, and the write waiting after it (if any).
    private struct Running {
        var waiting: [Completion]
        var next: Pending?
    }

    private let work: any BlockingWork
    private var running: [String: Running] = [:]
    /// Files whose last write failed and which wait for their next try, with that try.
    private var refused: [String: () -> Void] = [:]

    package init(work: any BlockingWork) {
        self.work = work
    }

    /// Whether a write of `path` runs or waits.
    package func isWriting(_ path: String) -> Bool { running[path] != nil }

    /// Writes `bytes` to `path` durably, then calls `completion` on the loop.
    package func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o640, then completion: Completion? = nil) {
        let waiting = completion.map { [$0] } ?? []
        guard running[path] != nil else { return start(Pending(bytes: bytes, mode: mode, waiting: waiting), path) }
        running[path]!.next = Pending(bytes: bytes, mode: mode, waiting: (running[path]!.next?.waiting ?? []) + waiting)
    }

    /// Calls `completion` once the newest content given for `path` is written (at once when
    /// no write of it runs), or with the error of that write.
    package func whenWritten(_ path: String, then completion: @escaping Completion) {
        guard running[path] != nil else { return completion(nil) }
        if running[path]!.next != nil {
            running[path]!.next!.waiting.append(completion)
        } else {
            running[path]!.waiting.append(completion)
        }
    }

    /// Has ``finish()`` try `path` once more with `retry`, unless ``forgetRefused(_:)`` comes
    /// first: a stop must not wait a retry interval, nor leave without the last try.
    package func noteRefused(_ path: String, retry: @escaping () -> Void) { refused[path] = retry }

    package func forgetRefused(_ path: String) { refused[path] = nil }

    /// Tries each refused file once more, then blocks until every write given has run and
    /// its completion has run (at a clean stop).
    package func finish() {
        let retries = refused.values
        refused = [:]
        for retry in retries { retry() }
        while !running.isEmpty { work.finish() }
    }

    private func start(_ pending: Pending, _ path: String) {
        running[path] = Running(waiting: pending.waiting)
        let (bytes, mode) = (pending.bytes, pending.mode)
        work.run(
            { () -> SystemError? in
                do throws(SystemError) {
                    try FileSystem.writeAtomically(bytes, to: path, mode: mode)
                    return nil
                } catch {
                    return error
                }
            },
            then: { [unowned self] failure in
                let ended = running.removeValue(forKey: path)
                if let next = ended?.next { start(next, path) }
                for completion in ended?.waiting ?? [] { completion(failure) }
            })
    }
}
