/// The bounds of every control request and answer (docs/CLI.md): what a peer on
/// `control.sock` can make the daemon read, hold and send.
public enum ControlLimits {
    /// Longest request line the daemon reads; longer ones get an error answer.
    public static let requestBytes = 64 * 1024
    /// Longest answer line. The daemon answers an error instead of a longer answer, and
    /// the client reports a longer line as an error rather than dropping it.
    public static let answerBytes = 16 * 1024 * 1024
    /// Names in one request.
    public static let names = 0...1000
    /// Bytes of one name, group, key or item type.
    public static let nameBytes = 1...255
    /// Bytes of a URL or an item's path.
    public static let pathBytes = 1...4096
    /// Lines `tail` shows first.
    public static let tailLines = 1...10_000
    /// Entries `events` and `maintail` show first: their rings hold 1000.
    public static let logLines = 0...1000
    /// A pulled widget's width and height.
    public static let pixels = 1...10_000
    /// Items of one `perform`.
    public static let items = 1...100
}

/// Checks the fields of one request and words the errors: `tail: field lines: -1 is not in 1...10000`.
struct FieldCheck {
    let command: ControlCommand

    func failure(_ field: String, _ problem: String) -> ControlDecodingError {
        ControlDecodingError(message: "\(command.rawValue): field \(field): \(problem)")
    }

    func range(_ value: Int, _ bounds: ClosedRange<Int>, field: String, what: String? = nil) throws(ControlDecodingError) {
        guard bounds.contains(value) else {
            throw failure(field, "\(value)\(what.map { " " + $0 } ?? "") is not in \(bounds.lowerBound)...\(bounds.upperBound)")
        }
    }

    /// Non-empty, within `bytes`, no control characters (names end up in terminals and logs).
    func text(_ value: String, _ bytes: ClosedRange<Int>, field: String) throws(ControlDecodingError) {
        guard bytes.contains(value.utf8.count) else {
            throw failure(field, "\(value.utf8.count) bytes is not in \(bytes.lowerBound)...\(bytes.upperBound)")
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw failure(field, "'\(clip(value))' contains a control character")
        }
    }

    func name(_ value: String, field: String) throws(ControlDecodingError) {
        try text(value, ControlLimits.nameBytes, field: field)
    }

    func names(_ values: [String], field: String) throws(ControlDecodingError) {
        try range(values.count, ControlLimits.names, field: field, what: "names")
        for (index, value) in values.enumerated() { try name(value, field: "\(field)[\(index)]") }
    }

    func clip(_ value: String) -> String { Self.clip(value) }

    /// At most 64 characters of a peer's text in an error, control characters escaped.
    static func clip(_ value: String) -> String {
        let escaped = value.prefix(64).unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined()
        return value.count > 64 ? escaped + "…" : escaped
    }
}

/// Signals by name, as `kill -l` spells them without `SIG`.
public enum SignalName {
    /// The signals `supervisorctl signal` accepts by name (Linux numbers).
    public static let all: [(name: String, number: Int32)] = [
        ("HUP", 1), ("INT", 2), ("QUIT", 3), ("KILL", 9), ("USR1", 10), ("USR2", 12), ("TERM", 15),
        ("CONT", 18), ("STOP", 19), ("TSTP", 20), ("WINCH", 28),
    ]

    /// `HUP`, `SIGHUP`, `hup` or `1` → 1; nil for anything else.
    public static func number(_ text: String) -> Int32? {
        if let number = Int32(text) { return (1...64).contains(number) ? number : nil }
        let upper = text.uppercased()
        let bare = upper.hasPrefix("SIG") ? String(upper.dropFirst(3)) : upper
        return all.first { $0.name == bare }?.number
    }
}
