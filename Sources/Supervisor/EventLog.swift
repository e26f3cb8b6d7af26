import ControlProtocol
import Logging

/// The daemon's recent events in a bounded ring, with followers for `events -f`.
/// Every event is also logged.
final class EventLog {
    private var ring: [EventRecord] = []
    private var next = 0
    private var sequence: UInt64 = 0
    private let capacity: Int
    private let logger: Logger
    private var followers: [ObjectIdentifier: (EventRecord) -> Void] = [:]

    init(capacity: Int = 1000, logger: Logger) {
        self.capacity = capacity
        self.logger = logger
        ring.reserveCapacity(capacity)
    }

    /// Records an event and returns it.
    @discardableResult
    func record(_ kind: EventKind, _ name: String?, reason: String? = nil, _ message: String, kill: KillRecord? = nil) -> EventRecord {
        sequence += 1
        let event = EventRecord(sequence: sequence, timeMs: WallClock.nowMilliseconds(), kind: kind, name: name,
                                reason: reason, message: message, kill: kill)
        if ring.count < capacity {
            ring.append(event)
        } else {
            ring[next] = event
        }
        next = (next + 1) % capacity
        let level: Logger.Level = switch kind {
        case .kill, .oom, .fatal, .error: .warning
        default: .info
        }
        logger.log(level: level, "\(name.map { $0 + ": " } ?? "")\(message)", metadata: reason.map { ["reason": "\($0)"] })
        for follower in followers.values { follower(event) }
        return event
    }

    /// The last `count` events, oldest first.
    func recent(_ count: Int) -> [EventRecord] {
        let ordered = ring.count < capacity ? ring : Array(ring[next...] + ring[..<next])
        return Array(ordered.suffix(max(0, count)))
    }

    func follow(_ token: AnyObject, _ body: @escaping (EventRecord) -> Void) {
        followers[ObjectIdentifier(token)] = body
    }

    func unfollow(_ token: AnyObject) {
        followers.removeValue(forKey: ObjectIdentifier(token))
    }
}
