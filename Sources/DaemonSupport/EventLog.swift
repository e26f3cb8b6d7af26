/// What every room of the daemon shares: the event log (and its journal entries), the
/// wall clock, atomic files, the daemon's errors, latency figures, a process's definition.
///
/// This module owns only these small shared pieces. It must not know the process table,
/// extensions, hosts or sockets: every other room of the daemon imports it.
import ControlProtocol
import Logging

/// The daemon's recent events in a ring bounded in entries and in bytes, with followers
/// for `events -f`. Every event is also logged, or, with a ``journal``, sent to the journal
/// as a structured entry.
///
/// A message is cut at ``maxMessageBytes``: its text often comes from a peer (a URL, a
/// protocol error quoting what was sent), which must not make the daemon keep or log
/// megabytes.
package final class EventLog {
    /// The ring, oldest first from `first`; the slots before it are dropped in batches.
    private var ring: [EventRecord] = []
    private var first = 0
    private var bytes = 0
    private var sequence: UInt64 = 0
    private let capacity: Int
    private let maxBytes: Int
    private let logger: Logger
    private var followers: [ObjectIdentifier: (EventRecord) -> Void] = [:]
    /// Takes the place of the log line: the entry has the message and the figures.
    package var journal: EventJournal?
    /// Exits and restarts so far, by process name (for `/metrics`).
    package private(set) var processCounts: [String: [EventKind: Int]] = [:]

    /// Longest message kept (UTF-8 bytes); a longer one is cut and says by how much.
    static let maxMessageBytes = 4096

    package init(capacity: Int = 1000, maxBytes: Int = 1 << 20, logger: Logger) {
        self.capacity = capacity
        self.maxBytes = maxBytes
        self.logger = logger
    }

    /// Records an event and returns it. `figures` go to the journal only, as `EXTENSIOND_<name>` fields.
    @discardableResult
    package func record(
        _ kind: EventKind, _ name: String?, reason: String? = nil, _ message: String, kill: KillRecord? = nil,
        figures: [(name: String, value: String)] = []
    ) -> EventRecord {
        sequence += 1
        let event = EventRecord(
            sequence: sequence, timeMs: WallClock.nowMilliseconds(), kind: kind, name: name,
            reason: reason, message: Self.cut(message), kill: kill)
        if let name, kind == .exit || kind == .restart { processCounts[name, default: [:]][kind, default: 0] += 1 }
        ring.append(event)
        bytes += Self.size(of: event)
        while ring.count - first > capacity || (bytes > maxBytes && ring.count - first > 1) {
            bytes -= Self.size(of: ring[first])
            first += 1
        }
        if first >= capacity {
            ring.removeSubrange(0..<first)
            first = 0
        }
        let level: Logger.Level =
            switch kind {
            case .kill, .oom, .fatal, .error: .warning
            default: .info
            }
        if let journal {
            journal.send(event, figures: figures)
        } else {
            logger.log(level: level, "\(name.map { $0 + ": " } ?? "")\(event.message)", metadata: reason.map { ["reason": "\($0)"] })
        }
        for follower in followers.values { follower(event) }
        return event
    }

    /// The last `count` events, oldest first.
    package func recent(_ count: Int) -> [EventRecord] {
        Array(ring[first...].suffix(max(0, count)))
    }

    package func follow(_ token: AnyObject, _ body: @escaping (EventRecord) -> Void) {
        followers[ObjectIdentifier(token)] = body
    }

    package func unfollow(_ token: AnyObject) {
        followers.removeValue(forKey: ObjectIdentifier(token))
    }

    /// `message`, or its first ``maxMessageBytes`` bytes (whole scalars) and how much was cut.
    static func cut(_ message: String) -> String {
        let utf8 = message.utf8
        guard utf8.count > maxMessageBytes else { return message }
        var end = utf8.index(utf8.startIndex, offsetBy: maxMessageBytes)
        while UTF8.isContinuation(utf8[end]) { utf8.formIndex(before: &end) }
        let kept = utf8.distance(from: utf8.startIndex, to: end)
        return String(decoding: utf8[..<end], as: UTF8.self) + "… (\(utf8.count - kept) more bytes cut)"
    }

    /// What an event holds in memory, roughly: its texts and a fixed part.
    private static func size(of event: EventRecord) -> Int {
        128 + event.message.utf8.count + (event.name?.utf8.count ?? 0) + (event.reason?.utf8.count ?? 0)
    }
}
