/// Reads a config file and its drop-ins into a validated ``Configuration``.
public enum ConfigurationLoader {
    /// The default config file.
    public static let defaultPath = "/etc/extensiond/extensiond.toml"

    /// Loads `path` and the drop-ins `<dir>/<name>.d/*.toml` (merged in name order),
    /// applies `[defaults]` and validates. Throws every error found, not only the first.
    public static func load(path: String) throws(ConfigurationErrors) -> Configuration {
        // Placeholder until the TOML loader lands.
        throw ConfigurationErrors([ConfigurationError(file: path, message: "the TOML loader is not written yet")])
    }
}

/// One problem in a config file, located as precisely as the parser allows.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; `nil` where the parser gives no position.
    public var line: Int?
    public var column: Int?
    /// Dotted key path such as `extensions."com.example.w".memory_max`, when known.
    public var keyPath: String?
    public var message: String

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
    public var errors: [ConfigurationError]

    public init(_ errors: [ConfigurationError]) { self.errors = errors }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
