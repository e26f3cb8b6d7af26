import Glibc
import Sockets

/// One file of the daemon's own state (`apps.json`, `identities.json`) whose newest content
/// is kept in memory until the disk has it, written through ``DurableFiles``.
///
/// A write that fails (a full, failing or read-only disk) is an `error` event (reason
/// `storage`) naming the file and the errno, at the first failure only; the newest content
/// is written again every ``retryInterval`` until a write succeeds, which is a `cleanup`
/// event, and once more at a clean stop (``DurableFiles/finish()``). Whoever waits for a save is answered at the first outcome: on disk, or why not.
package final class DurableRecord {
    package typealias Completion = DurableFiles.Completion

    /// How long a failed write waits before it is tried again.
    package static let retryInterval = Duration.seconds(1)

    package let path: String
    private let mode: mode_t
    private let files: DurableFiles
    private let clock: any CoordinatorClock
    private let events: EventLog
    /// The newest content given, written or not.
    package private(set) var content: [UInt8]?
    /// Why the last write failed, until one succeeds.
    package private(set) var failure: SystemError?
    private var retry: (any CoordinatorTimer)?

    /// `content` is what the file holds now (read at start).
    package init(path: String, mode: mode_t = 0o640, content: [UInt8]?, files: DurableFiles, clock: any CoordinatorClock, events: EventLog) {
        self.path = path
        self.mode = mode
        self.content = content
        self.files = files
        self.clock = clock
        self.events = events
    }

    /// Saves `bytes` (nothing to write when the file holds them already), then calls
    /// `completion` on the loop with `nil` once they are on disk, or with the write's error.
    package func save(_ bytes: [UInt8], then completion: Completion? = nil) {
        guard bytes != content || failure != nil else {
            // Written, or being written.
            return files.whenWritten(path) { completion?($0) }
        }
        content = bytes
        write(then: completion)
    }

    /// What an answer promising a save adds when the disk refused it: `reason` (the write's
    /// error) and that the content is kept and written again.
    package static func notOnDisk(_ reason: some CustomStringConvertible) -> String {
        "not on disk yet (kept, tried again every second): \(reason)"
    }

    /// Whether a write of the file runs or waits.
    package var isWriting: Bool { files.isWriting(path) }

    /// Calls `completion` once the newest content is on disk (at once when it is), or with
    /// the error of the write that carried it.
    package func whenWritten(then completion: @escaping Completion) {
        if failure != nil && !files.isWriting(path) { return write(then: completion) }
        files.whenWritten(path, then: completion)
    }

    private func write(then completion: Completion?) {
        guard let bytes = content else { return }
        retry = nil
        files.forgetRefused(path)
        files.write(bytes, to: path, mode: mode) { [weak self] error in
            self?.written(bytes, error)
            completion?(error)
        }
    }

    private func written(_ bytes: [UInt8], _ error: SystemError?) {
        guard let error else {
            if failure != nil, !files.isWriting(path) {
                failure = nil
                files.forgetRefused(path)
                events.record(.cleanup, nil, reason: "storage", "\(path) is written again")
            }
            return
        }
        if failure == nil {
            events.record(.error, nil, reason: "storage", "cannot write \(path) (kept in memory, tried again every second): \(error) (errno \(error.errno))")
        }
        failure = error
        guard !files.isWriting(path), retry == nil else { return }
        files.noteRefused(path) { [weak self] in self?.write(then: nil) }
        retry = clock.timer(after: Self.retryInterval, accuracy: .milliseconds(100)) { [weak self] in
            guard let self else { return }
            retry = nil
            write(then: nil)
        }
    }
}
