import TOML

/// Parses one TOML file's text into a ``ConfigNode`` tree whose nodes know their file,
/// line and column. The only file of this module that knows the parser.
enum TOMLSource {
    /// The tree of `text`, read from `file`, or the syntax error found in it.
    static func parse(_ text: String, file: String) -> Result<ConfigNode, ConfigurationError> {
        let table: TOMLTable
        do {
            table = try TOMLParser.parse(text)
        } catch {
            return .failure(
                ConfigurationError(
                    file: file, line: error.position.line, column: error.position.column,
                    message: "TOML syntax error: \(error.message)"))
        }
        if let nulKey = firstKeyWithNUL(in: table, at: .root) {
            return .failure(
                ConfigurationError(
                    file: file, line: nulKey.position.line, column: nulKey.position.column,
                    keyPath: nulKey.path.description, message: "a key must not contain a NUL character"))
        }
        return .success(node(of: TOMLNode(.table(table), at: TOMLPosition(line: 1, column: 1)), at: .root, file: file))
    }

    /// A table entry's node is located at its key; an array element at the element.
    private static func node(of tomlNode: TOMLNode, at path: ConfigKeyPath, file: String) -> ConfigNode {
        let value: ConfigNode.Value =
            switch tomlNode.value {
            case .string(let text): .string(text)
            case .integer(let integer): .integer(Int(integer))
            case .float(let float): .float(float)
            case .boolean(let boolean): .boolean(boolean)
            case .offsetDateTime: .temporal(typeName: "an offset date-time")
            case .localDateTime, .localDate, .localTime: .temporal(typeName: "a \(tomlNode.value.typeName)")
            case .array(let elements):
                .array(elements.enumerated().map { node(of: $1, at: path.appending(index: $0), file: file) })
            case .table(let table):
                .table(
                    Dictionary(
                        table.entries.map { entry in
                            var located = entry.node
                            located.position = entry.keyPosition
                            return (entry.key, node(of: located, at: path.appending(entry.key), file: file))
                        },
                        uniquingKeysWith: { first, _ in first }))
            }
        let location = path == .root ? nil : SourceLocation(line: tomlNode.position.line, column: tomlNode.position.column)
        return ConfigNode(value: value, origin: Origin(file: file, location: location, keyPath: path))
    }

    /// Keys name files, cgroups and environment variables, which end at a NUL: such a key is
    /// refused where it is written rather than cut short later.
    private static func firstKeyWithNUL(in table: TOMLTable, at path: ConfigKeyPath) -> (path: ConfigKeyPath, position: TOMLPosition)? {
        var found: [(path: ConfigKeyPath, position: TOMLPosition)] = []
        func visit(_ value: TOMLValue, at path: ConfigKeyPath) {
            switch value {
            case .table(let table):
                for entry in table.entries {
                    let entryPath = path.appending(entry.key)
                    if entry.key.contains("\0") { found.append((entryPath, entry.keyPosition)) }
                    visit(entry.node.value, at: entryPath)
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() { visit(element.value, at: path.appending(index: index)) }
            default: break
            }
        }
        visit(.table(table), at: path)
        return found.min { $0.position < $1.position }
    }
}
