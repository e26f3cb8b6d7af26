import EventLoop
import ExtensiondPolicy
import Output

/// What capturing a process's stdout and stderr may cost the daemon (docs/SECURITY.md):
/// both streams share a budget of bytes per second (`output_rate`, four seconds' worth at
/// once) that is timestamped, written and followed. What a read brings past it is dropped and counted, and then the pipes are
/// read once per ``pauseInterval`` only: a process writing as fast as it can waits on
/// its full pipe most of the time, and its flood costs the loop one read per pause.
/// Drops are recorded (``OutputLog/noteSkipped(_:of:reason:)``) when the flood ends,
/// when the stream does, and at most once per ``recordInterval`` meanwhile.
final class OutputCapture {
    let bytesPerSecond: Int
    static let pauseInterval = Duration.milliseconds(10)
    static let recordInterval = Duration.seconds(1)

    private let loop: EventLoop
    private let log: OutputLog
    private var budget: ByteRateBudget
    /// Bytes dropped since the last record, by stream.
    private var skipped: [StandardStream: Int] = [:]
    private var lastRecord: MonotonicInstant?
    private var paused: [Connection] = []
    private var resumeTimer: EventSource?

    init(loop: EventLoop, log: OutputLog, bytesPerSecond: Int) {
        self.loop = loop
        self.log = log
        self.bytesPerSecond = bytesPerSecond
        let (burst, overflow) = bytesPerSecond.multipliedReportingOverflow(by: 4)
        budget = ByteRateBudget(bytesPerSecond: bytesPerSecond, burst: overflow ? .max : burst, now: loop.now.policyInstant)
    }

    /// Captures what the budget allows of `bytes`, read from `connection`.
    func take(_ bytes: UnsafeRawBufferPointer, from stream: StandardStream, on connection: Connection) {
        let granted = budget.take(bytes.count, at: loop.now.policyInstant)
        if granted > 0 { log.append(UnsafeRawBufferPointer(rebasing: bytes[..<granted]), from: stream) }
        guard granted < bytes.count else {
            if !skipped.isEmpty { recordSkipped() }
            return
        }
        skipped[stream, default: 0] += bytes.count - granted
        pause(connection)
    }

    /// Records what was dropped and not recorded yet.
    func recordSkipped() {
        lastRecord = loop.now
        for stream in StandardStream.allCases {
            guard let bytes = skipped.removeValue(forKey: stream) else { continue }
            log.noteSkipped(bytes, of: stream, reason: "more than output_rate, \(bytesPerSecond) bytes of output per second")
        }
    }

    private func pause(_ connection: Connection) {
        if resumeTimer == nil {
            resumeTimer = loop.addTimer(after: Self.pauseInterval) { [unowned self] in resume() }
        }
        connection.isReadingPaused = true
        if !paused.contains(where: { $0 === connection }) { paused.append(connection) }
    }

    private func resume() {
        resumeTimer = nil
        if !skipped.isEmpty, lastRecord.map({ loop.now.since($0) >= Self.recordInterval }) ?? true { recordSkipped() }
        for connection in paused { connection.isReadingPaused = false }
        paused = []
    }
}
