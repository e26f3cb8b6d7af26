import TOMLKit

/// Parses one TOML file's text into a ``ConfigNode`` tree whose nodes know their file,
/// line and column.
enum TOMLSource {
    /// The tree of `text`, read from `file`, or the syntax error TOMLKit found.
    static func parse(_ text: String, file: String) -> Result<ConfigNode, ConfigurationError> {
        // TOMLKit hands the text to C++ as a C string, which would silently end at a NUL.
        if let nul = text.unicodeScalars.firstIndex(of: "\0") {
            let line = text.unicodeScalars[..<nul].count(where: { $0 == "\n" }) + 1
            return .failure(ConfigurationError(file: file, line: line, message: "the file contains a NUL character"))
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            return .failure(
                ConfigurationError(
                    file: file, line: error.source.begin.line, column: error.source.begin.column,
                    message: "TOML syntax error: \(error.description)"))
        } catch {
            return .failure(ConfigurationError(file: file, message: "TOML syntax error: \(error)"))
        }
        let locations = KeyLocator.locate(in: text)
        // TOMLKit passes keys through C strings and traps on a key cut short by a NUL.
        let keysWithNUL = locations.filter { $0.key.containsNUL }
        if let (path, location) = keysWithNUL.min(by: {
            ($0.value.line, $0.value.column) < ($1.value.line, $1.value.column)
        }) {
            return .failure(
                ConfigurationError(
                    file: file, line: location.line, column: location.column, keyPath: path.description,
                    message: "a key must not contain a NUL character"))
        }
        return .success(node(of: table.tomlValue, at: .root, file: file, locations: locations))
    }

    /// Converts a TOMLKit value; one the locator did not find is known by its key path alone.
    private static func node(
        of value: TOMLValue, at path: ConfigKeyPath, file: String, locations: [ConfigKeyPath: SourceLocation]
    ) -> ConfigNode {
        func child(_ value: TOMLValue, _ path: ConfigKeyPath) -> ConfigNode {
            node(of: value, at: path, file: file, locations: locations)
        }
        let converted: ConfigNode.Value =
            switch value.type {
            case .string: .string(value.string ?? "")
            case .int: .integer(value.int ?? 0)
            case .double: .float(value.double ?? 0)
            case .bool: .boolean(value.bool ?? false)
            case .date, .time, .dateTime: .temporal(typeName: value.type.description)
            case .array:
                .array(
                    (value.array.map { Array($0) } ?? []).enumerated().map {
                        child($1.tomlValue, path.appending(index: $0))
                    })
            case .table:
                .table(
                    Dictionary(
                        (value.table.map { Array($0) } ?? []).map { key, entry in
                            (key, child(entry.tomlValue, path.appending(key)))
                        },
                        uniquingKeysWith: { first, _ in first }))
            }
        return ConfigNode(value: converted, origin: Origin(file: file, location: locations[path], keyPath: path))
    }
}
