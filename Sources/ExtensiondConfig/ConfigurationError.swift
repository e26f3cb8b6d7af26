/// One problem in a config file, located as precisely as the parser allows.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the problem is in (a drop-in names itself).
    public var file: String
    /// 1-based; `nil` where the parser gives no position.
    public var line: Int?
    /// 1-based; `nil` where the position is unknown.
    public var column: Int?
    /// Dotted key path such as `extensions."com.example.w".memory_max`, when known.
    public var keyPath: String?
    /// What is wrong and what was expected.
    public var message: String

    /// An error at `file`, as precisely located as known.
    public init(file: String, line: Int? = nil, column: Int? = nil, keyPath: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    /// `file:line:column: key: message`, the form editors and compilers use.
    public var description: String {
        var location = file
        if let line { location += ":\(line)" }
        if let column { location += ":\(column)" }
        if let keyPath { return "\(location): \(keyPath): \(message)" }
        return "\(location): \(message)"
    }
}

/// Every error found in one load.
public struct ConfigurationErrors: Error, Sendable, Equatable, CustomStringConvertible {
    /// In file, line and column order.
    public var errors: [ConfigurationError]

    /// Wraps `errors`.
    public init(_ errors: [ConfigurationError]) { self.errors = errors }

    /// One error per line.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
