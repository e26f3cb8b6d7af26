import Synchronization

/// The daemon's own last log lines in a bounded ring, for `supervisorctl maintail`,
/// with followers for `maintail -f`. Memory: at most `capacity` lines of at most
/// `maxLineBytes` each.
public final class DaemonLogRing: Sendable {
    private struct State {
        var lines: [String] = []
        var next = 0
        var followers: [ObjectIdentifier: @Sendable (String) -> Void] = [:]
    }

    private let state = Mutex(State())
    private let capacity: Int
    /// Longer lines are cut, here and on stderr: a log line quoting a peer's input stays bounded.
    static let maxLineBytes = 4096

    public init(capacity: Int = 1000) {
        self.capacity = capacity
    }

    /// `line` cut at ``maxLineBytes`` (saying how much was cut), whole when shorter.
    static func bounded(_ line: String) -> String {
        let count = line.utf8.count
        guard count > maxLineBytes else { return line }
        return String(decoding: line.utf8.prefix(maxLineBytes), as: UTF8.self) + "… (\(count - maxLineBytes) bytes cut)"
    }

    /// Keeps `line` (without its newline) and hands it to the followers.
    func append(_ line: String) {
        let kept = Self.bounded(line)
        let followers = state.withLock { state in
            if state.lines.count < capacity {
                state.lines.append(kept)
            } else {
                state.lines[state.next] = kept
            }
            state.next = (state.next + 1) % capacity
            return Array(state.followers.values)
        }
        for follower in followers { follower(kept) }
    }

    /// The last `count` lines, oldest first.
    package func recent(_ count: Int) -> [String] {
        state.withLock { state in
            let ordered = state.lines.count < capacity ? state.lines : Array(state.lines[state.next...] + state.lines[..<state.next])
            return Array(ordered.suffix(max(0, count)))
        }
    }

    package func follow(_ token: AnyObject, _ body: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.followers[ObjectIdentifier(token)] = body }
    }

    package func unfollow(_ token: AnyObject) {
        _ = state.withLock { $0.followers.removeValue(forKey: ObjectIdentifier(token)) }
    }
}
