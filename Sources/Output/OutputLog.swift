/// Where output goes: each process's captured stdout and stderr (the ring, the rotating
/// files, the journal) and the daemon's own log lines (`maintail`, the journal handler).
///
/// This module owns capturing, storing and following lines. It must not start or stop
/// processes, nor decide what a line means.
import DaemonSupport
import Glibc

/// One of a process's two output streams.
package enum StandardStream: String, CaseIterable, Sendable {
    case stdout, stderr
}

/// A captured output line: `2026-11-22T07:20:01.123456Z text`, without the newline.
package struct OutputLine: Equatable, Sendable {
    var stream: StandardStream
    package var text: String
}

/// A process's captured output, its two streams kept apart: stdout in
/// `<directory>/<name>.log`, stderr in `<directory>/<name>.stderr.log`, each line
/// timestamped (microseconds, so the two files merge back in arrival order) and each
/// file rotated on its own (``RotatingLogFile``). Memory is bounded by one partial line
/// per stream; a read by ``lastLines(_:of:)`` by ``maxTailLines``.
///
/// Lines that cannot be written (a full disk) are dropped whole and counted: the first
/// drop and, once lines are written again or the stream ends, how many lines and bytes
/// were dropped are reported through ``onDrop``. Output the capture did not take (past its
/// rate, see ``OutputCapture``) is reported by ``noteSkipped(_:of:reason:)``. Both count in
/// ``droppedBytes``.
package final class OutputLog {
    private let standardOutput: CapturedStream
    private let standardError: CapturedStream
    /// The line being written, kept to reuse its storage.
    private var line: [UInt8] = []
    private var followers: [ObjectIdentifier: (streams: [StandardStream], body: (OutputLine) -> Void)] = [:]
    /// Whether lines go to the files (`output = "file"` or `"both"`).
    package var writesFiles = true
    /// Where lines go besides the files (`output = "journal"` or `"both"`).
    package var journal: OutputJournal?
    /// Told when lines start being dropped and how many were, once the drop ends.
    package var onDrop: ((String) -> Void)?
    /// Output bytes dropped since the daemon started, for `stats` and the metrics.
    package private(set) var droppedBytes = 0

    /// Longest line kept whole; longer output is split, so a flood without newlines
    /// cannot grow the daemon's memory.
    static let maxLineBytes = 4096
    /// The most lines one ``lastLines(_:of:)`` returns, whatever a client asks for.
    static let maxTailLines = 10_000

    package init(directory: String, name: String, maxSize: UInt64, files: Int) {
        standardOutput = CapturedStream(RotatingLogFile(path: directory + "/" + name + ".log", maxSize: maxSize, files: files))
        standardError = CapturedStream(RotatingLogFile(path: directory + "/" + name + ".stderr.log", maxSize: maxSize, files: files))
    }

    /// The current file of `stream`.
    func path(of stream: StandardStream) -> String { captured(stream).file.path }

    /// Appends raw output of `stream`; complete lines are written with a timestamp (the
    /// time of this call: one chunk of output arrived at once).
    package func append(_ bytes: UnsafeRawBufferPointer, from stream: StandardStream) {
        guard var cursor = bytes.baseAddress else { return }
        let end = cursor + bytes.count
        let stamp = Self.stamp()
        let capture = captured(stream)
        while cursor < end {
            let room = Self.maxLineBytes - capture.partial.count
            // A newline right after a full line still ends that line.
            if let newline = memchr(cursor, Int32(UInt8(ascii: "\n")), min(room + 1, end - cursor)) {
                let length = UnsafeRawPointer(newline) - cursor
                emit(UnsafeRawBufferPointer(start: cursor, count: length), stream: stream, stamp: stamp)
                cursor += length + 1
            } else if end - cursor >= room {
                emit(UnsafeRawBufferPointer(start: cursor, count: room), stream: stream, stamp: stamp)
                cursor += room
            } else {
                capture.partial.append(contentsOf: UnsafeRawBufferPointer(start: cursor, count: end - cursor))
                cursor = end
            }
        }
    }

    /// Writes what is left of an unterminated last line of `stream` and closes its file
    /// until the next output (the process ended; 200 idle extensions should not hold 400 fds).
    package func flush(_ stream: StandardStream) {
        let capture = captured(stream)
        if !capture.partial.isEmpty { emit(UnsafeRawBufferPointer(start: nil, count: 0), stream: stream, stamp: Self.stamp()) }
        reportDropped(stream)
        capture.file.close()
    }

    /// Records that `bytes` of `stream` were not captured, and why: a line in the stream's
    /// log (ending the line in progress, which lost its rest) and a report through ``onDrop``.
    package func noteSkipped(_ bytes: Int, of stream: StandardStream, reason: String) {
        droppedBytes += bytes
        let capture = captured(stream)
        let stamp = Self.stamp()
        if !capture.partial.isEmpty { emit(UnsafeRawBufferPointer(start: nil, count: 0), stream: stream, stamp: stamp) }
        let notice = "[extensiond] dropped \(bytes) bytes of \(stream): \(reason)"
        Array(notice.utf8).withUnsafeBytes { emit($0, stream: stream, stamp: stamp) }
        onDrop?(notice.dropFirst("[extensiond] ".count).description)
    }

    /// Calls `body` with every line of `streams` written from now on, until ``unfollow(_:)``.
    package func follow(_ token: AnyObject, _ streams: [StandardStream] = StandardStream.allCases, _ body: @escaping (OutputLine) -> Void) {
        followers[ObjectIdentifier(token)] = (streams, body)
    }

    package func unfollow(_ token: AnyObject) {
        followers.removeValue(forKey: ObjectIdentifier(token))
    }

    /// Empties both streams' files (`supervisorctl clear`).
    package func clear() {
        for stream in StandardStream.allCases { captured(stream).file.clear() }
    }

    /// The last `count` lines (clamped to 0…``maxTailLines``) of `streams`, oldest first;
    /// of both streams, merged by their timestamps, which is arrival order.
    package func lastLines(_ count: Int, of streams: [StandardStream] = StandardStream.allCases) -> [OutputLine] {
        let wanted = min(max(count, 0), Self.maxTailLines)
        var merged: [(stamp: ArraySlice<UInt8>, line: OutputLine)] = []
        for stream in StandardStream.allCases where streams.contains(stream) {
            for bytes in captured(stream).file.lastLines(wanted) {
                let stamp = bytes.prefix { $0 != UInt8(ascii: " ") }
                merged.append((stamp, OutputLine(stream: stream, text: String(decoding: bytes, as: UTF8.self))))
            }
        }
        // Stable: lines of one stream with one stamp keep their order.
        let ordered = merged.enumerated().sorted { left, right in
            left.element.stamp.lexicographicallyPrecedes(right.element.stamp)
                || (left.element.stamp == right.element.stamp && left.offset < right.offset)
        }
        return ordered.suffix(wanted).map(\.element.line)
    }

    private func captured(_ stream: StandardStream) -> CapturedStream {
        switch stream {
        case .stdout: standardOutput
        case .stderr: standardError
        }
    }

    private static func stamp() -> [UInt8] {
        Array(WallClock.iso8601(microseconds: WallClock.nowMicroseconds()).utf8)
    }

    /// Writes `stamp`, the partial line of `stream` and `end` as one line.
    private func emit(_ end: UnsafeRawBufferPointer, stream: StandardStream, stamp: [UInt8]) {
        let capture = captured(stream)
        line.removeAll(keepingCapacity: true)
        line += stamp
        line.append(UInt8(ascii: " "))
        line += capture.partial
        line += end
        capture.partial.removeAll(keepingCapacity: true)
        journal?.send(String(decoding: line[(stamp.count + 1)...], as: UTF8.self), from: stream)
        if !followers.isEmpty {
            let text = OutputLine(stream: stream, text: String(decoding: line, as: UTF8.self))
            for follower in followers.values where follower.streams.contains(stream) { follower.body(text) }
        }
        guard writesFiles else { return }
        line.append(UInt8(ascii: "\n"))
        if let error = capture.file.write(line) {
            if capture.dropped.lines == 0 { onDrop?("\(error); dropping \(stream) lines until they can be written") }
            capture.dropped.lines += 1
            capture.dropped.bytes += line.count
            droppedBytes += line.count
        } else {
            reportDropped(stream)
        }
    }

    private func reportDropped(_ stream: StandardStream) {
        let capture = captured(stream)
        guard capture.dropped.lines > 0 else { return }
        onDrop?("dropped \(capture.dropped.lines) \(stream) line(s) (\(capture.dropped.bytes) bytes) that could not be written to \(capture.file.path)")
        capture.dropped = (0, 0)
    }
}

/// One stream's file and the start of its line whose end has not arrived yet.
private final class CapturedStream {
    let file: RotatingLogFile
    var partial: [UInt8] = []
    /// Lines not written since the last that was (a full disk), and their bytes.
    var dropped = (lines: 0, bytes: 0)

    init(_ file: RotatingLogFile) { self.file = file }
}
