/// A 1-based position in a document; the column counts Unicode scalars, not bytes.
public struct TOMLPosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.line, lhs.column) < (rhs.line, rhs.column) }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}

/// A value and where it starts: a key's value starts after its `=`, an array element where the
/// element is written, a table where its header (or first dotted key) names it.
public struct TOMLNode: Sendable, Equatable {
    public var value: TOMLValue
    public var position: TOMLPosition

    public init(_ value: TOMLValue, at position: TOMLPosition) {
        self.value = value
        self.position = position
    }
}

/// One TOML value.
public enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    /// `1979-05-27T07:32:00-08:00`; the offset in minutes east of UTC.
    case offsetDateTime(TOMLDate, TOMLTime, offsetMinutes: Int)
    /// `1979-05-27T07:32:00`
    case localDateTime(TOMLDate, TOMLTime)
    /// `1979-05-27`
    case localDate(TOMLDate)
    /// `07:32:00`
    case localTime(TOMLTime)
    case array([TOMLNode])
    case table(TOMLTable)

    /// The type's name as the TOML specification spells it, such as "local date-time".
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .boolean: "boolean"
        case .offsetDateTime: "offset date-time"
        case .localDateTime: "local date-time"
        case .localDate: "local date"
        case .localTime: "local time"
        case .array: "array"
        case .table: "table"
        }
    }
}

/// A table's entries in the order they were first written.
public struct TOMLTable: Sendable, Equatable {
    /// One key of the table.
    public struct Entry: Sendable, Equatable {
        public var key: String
        /// Where the key is written: its last component in a dotted key or header; for a table
        /// named only on the way to another (`a` in `[a.b]`), its first mention.
        public var keyPosition: TOMLPosition
        public var node: TOMLNode
    }

    public private(set) var entries: [Entry]
    private var indices: [String: Int]

    init(entries: [Entry]) {
        self.entries = entries
        indices = Dictionary(entries.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The value at `key`, if present.
    public subscript(key: String) -> TOMLNode? { indices[key].map { entries[$0].node } }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.entries == rhs.entries }
}
