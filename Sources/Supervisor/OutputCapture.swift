import EventLoop
import ExtensiondPolicy

/// What capturing a process's stdout and stderr may cost the daemon (docs/SECURITY.md):
/// both streams share a budget of bytes per second. What a read brings past it is dropped
/// and counted, and the pipes are not read again until the budget holds a slice: a process
/// writing as fast as it can then waits on its full pipe instead of keeping the loop busy.
/// Each pause ends with a `dropped` record (``OutputLog/noteSkipped(_:of:reason:)``).
final class OutputCapture {
    static let bytesPerSecond = 256 << 10
    static let burst = 1 << 20
    /// What the budget holds again before paused pipes are read.
    static let resumeBytes = 64 << 10

    private let loop: EventLoop
    private let log: OutputLog
    private var budget: ByteRateBudget
    /// Bytes dropped since the last record, by stream.
    private var skipped: [StandardStream: Int] = [:]
    private var paused: [Connection] = []
    private var resumeTimer: EventSource?

    init(loop: EventLoop, log: OutputLog) {
        self.loop = loop
        self.log = log
        budget = ByteRateBudget(bytesPerSecond: Self.bytesPerSecond, burst: Self.burst, now: loop.now.policyInstant)
    }

    /// Captures what the budget allows of `bytes`, read from `connection`.
    func take(_ bytes: UnsafeRawBufferPointer, from stream: StandardStream, on connection: Connection) {
        let granted = budget.take(bytes.count, at: loop.now.policyInstant)
        if granted > 0 { log.append(UnsafeRawBufferPointer(rebasing: bytes[..<granted]), from: stream) }
        guard granted < bytes.count else { return }
        skipped[stream, default: 0] += bytes.count - granted
        pause(connection)
    }

    /// Records what was dropped and not recorded yet (the pause ended, or the stream did).
    func recordSkipped() {
        for stream in StandardStream.allCases {
            guard let bytes = skipped.removeValue(forKey: stream) else { continue }
            log.noteSkipped(bytes, of: stream, reason: "more than \(Self.bytesPerSecond >> 10) KiB of output per second (\(Self.burst >> 20) MiB at once)")
        }
    }

    private func pause(_ connection: Connection) {
        if resumeTimer == nil {
            // Without a timer to resume it, a paused pipe would stay paused: read on.
            guard let at = budget.instant(whenAvailable: Self.resumeBytes, at: loop.now.policyInstant),
                  let timer = try? loop.addTimer(at: MonotonicInstant(notBefore: at), accuracy: .milliseconds(10), handler: { [unowned self] in resume() })
            else { return }
            resumeTimer = timer
        }
        connection.isReadingPaused = true
        if !paused.contains(where: { $0 === connection }) { paused.append(connection) }
    }

    private func resume() {
        resumeTimer = nil
        recordSkipped()
        for connection in paused { connection.isReadingPaused = false }
        paused = []
    }
}
