/// Structured entries for the systemd journal: what they hold, how they are sent
/// (``SystemdJournal``, behind ``JournalWriting`` so tests can substitute it), and when
/// the daemon should send them (``JournalEnvironment``).
///
/// This module owns only the journal's native protocol as libsystemd offers it; what an
/// entry says about processes and events is decided by the daemon.

/// Syslog priorities, as the journal's `PRIORITY=` field takes them.
public enum JournalPriority: Int, Sendable {
    case emergency = 0, alert, critical, error, warning, notice, info, debug
}

/// One journal entry: `MESSAGE=`, `PRIORITY=` and further fields in the order added.
public struct JournalEntry: Sendable, Equatable {
    /// `NAME=value` pairs; a value may hold any bytes, newlines included.
    public private(set) var fields: [(name: String, value: String)]

    public init(message: String, priority: JournalPriority) {
        fields = [("MESSAGE", message), ("PRIORITY", String(priority.rawValue))]
    }

    /// Adds `NAME=value`. A name is 1–64 of `A-Z`, `0-9`, `_`, not starting with `_`
    /// (those are the journal's own, and it drops such fields from clients).
    public mutating func add(_ name: String, _ value: String) {
        precondition(Self.isValidName(name), "invalid journal field name \(name)")
        fields.append((name, value))
    }

    /// The value of the first field called `name`.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "_"), name.utf8.count <= 64 else { return false }
        return name.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_")
        }
    }

    public static func == (left: JournalEntry, right: JournalEntry) -> Bool {
        left.fields.elementsEqual(right.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
