/// One step of a key path: a table key or an array index.
enum KeyPathComponent: Hashable, Sendable {
    case key(String)
    case index(Int)
}

/// Where a value sits in the document, spelled as TOML spells it: `extensions."a.b".refresh`.
struct ConfigKeyPath: Hashable, Sendable, CustomStringConvertible {
    var components: [KeyPathComponent] = []

    static let root = ConfigKeyPath()

    func appending(_ key: String) -> ConfigKeyPath { ConfigKeyPath(components: components + [.key(key)]) }
    func appending(index: Int) -> ConfigKeyPath { ConfigKeyPath(components: components + [.index(index)]) }

    var description: String {
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += Self.spell(key)
            }
        }
        return text
    }

    /// A key as TOML would write it: bare when it can be, quoted otherwise.
    private static func spell(_ key: String) -> String {
        let bare =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy { $0.isASCIILetterOrDigit || $0 == "_" || $0 == "-" }
        if bare { return key }
        var quoted = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}

/// A 1-based position in a config file.
struct SourceLocation: Hashable, Sendable {
    var line: Int
    var column: Int
}

/// Where a value was written: file, position and key path.
struct Origin: Hashable, Sendable {
    var file: String
    var location: SourceLocation?
    var keyPath: ConfigKeyPath

    /// An error about the value written here.
    func error(_ message: String) -> ConfigurationError {
        ConfigurationError(
            file: file, line: location?.line, column: location?.column,
            keyPath: keyPath.components.isEmpty ? nil : keyPath.description, message: message)
    }
}

/// A parsed TOML value that remembers where it was written, so that merged drop-ins and
/// `[defaults]` still report errors at the file and line the value came from.
struct ConfigNode: Sendable {
    enum Value: Sendable {
        case string(String)
        case integer(Int)
        case float(Double)
        case boolean(Bool)
        /// A date, time or date-time; no config key takes one, so only its type name is kept,
        /// with its article ("a local date").
        case temporal(typeName: String)
        case array([ConfigNode])
        case table([String: ConfigNode])
    }

    var value: Value
    var origin: Origin

    /// The TOML type name, for "expected …, found …" messages.
    var typeName: String {
        switch value {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .temporal(let typeName): typeName
        case .array: "an array"
        case .table: "a table"
        }
    }

    var table: [String: ConfigNode]? {
        if case .table(let entries) = value { entries } else { nil }
    }

    /// The node at `path` below this one, if there is one.
    func node(at path: [String]) -> ConfigNode? {
        guard let first = path.first else { return self }
        return table?[first]?.node(at: Array(path.dropFirst()))
    }

    /// This node with `overlay` merged over it: tables merge key by key, recursively; any
    /// other value in `overlay` replaces the one here. A table keeps its first origin.
    func overlaid(by overlay: ConfigNode) -> ConfigNode {
        guard case .table(var entries) = value, case .table(let overlayEntries) = overlay.value else {
            return overlay
        }
        for (key, node) in overlayEntries {
            entries[key] = entries[key].map { $0.overlaid(by: node) } ?? node
        }
        return ConfigNode(value: .table(entries), origin: origin)
    }

    /// This table completed by the keys of `defaults` it lacks, recursively: what is written
    /// here wins, and tables keep this node's origin (they belong to this entry).
    func filled(from defaults: ConfigNode) -> ConfigNode {
        guard case .table(var entries) = value, case .table(let defaultEntries) = defaults.value else { return self }
        for (key, node) in defaultEntries {
            entries[key] = entries[key].map { $0.filled(from: node) } ?? node
        }
        return ConfigNode(value: .table(entries), origin: origin)
    }

    /// Only the given keys of this table.
    func restricted(to keys: Set<String>) -> ConfigNode {
        guard let entries = table else { return self }
        return ConfigNode(value: .table(entries.filter { keys.contains($0.key) }), origin: origin)
    }
}
