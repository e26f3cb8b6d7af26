/// Finds the line and column where each key of a TOML document is written.
///
/// TOMLKit reports positions only for syntax errors, not for values, so this scanner walks
/// the text once more. It runs only on documents TOMLKit has already accepted, so it can
/// follow the TOML grammar without diagnosing it; on anything unexpected it stops early and
/// the keys it did not reach are reported by key path alone. It never fails.
struct KeyLocator {
    /// The position of every key (the first character of its last component), of every table
    /// header and of every array element, by key path. Tables created implicitly by dotted
    /// keys point at their first mention.
    static func locate(in text: String) -> [ConfigKeyPath: SourceLocation] {
        var scanner = KeyLocator(text: text)
        scanner.scanDocument()
        return scanner.locations
    }

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var column = 1
    private var locations: [ConfigKeyPath: SourceLocation] = [:]
    /// How many `[[name]]` tables each array of tables has had so far.
    private var arrayTableCounts: [ConfigKeyPath: Int] = [:]

    private init(text: String) { scalars = Array(text.unicodeScalars) }

    // MARK: Statements

    private mutating func scanDocument() {
        var table = ConfigKeyPath.root
        while true {
            skipTrivia(acrossLines: true)
            guard let next = peek() else { return }
            let start = index
            if next == "[" {
                guard let header = scanTableHeader() else { return }
                table = header
            } else {
                scanKeyValue(in: table)
            }
            if index == start { return }  // Not TOML after all: stop rather than loop.
        }
    }

    /// `[a.b]` or `[[a.b]]`; returns the path that following keys belong to.
    private mutating func scanTableHeader() -> ConfigKeyPath? {
        advance()
        let isArray = peek() == "["
        if isArray { advance() }
        skipSpaces()
        guard let (header, location) = scanKey(below: .root) else { return nil }
        var path = header
        skipSpaces()
        guard peek() == "]" else { return nil }
        advance()
        if isArray {
            guard peek() == "]" else { return nil }
            advance()
            let element = arrayTableCounts[path, default: 0]
            arrayTableCounts[path] = element + 1
            path = path.appending(index: element)
            record(path, at: location)
        }
        return path
    }

    /// `key = value`, the key possibly dotted, below `table`.
    private mutating func scanKeyValue(in table: ConfigKeyPath) {
        guard let (path, _) = scanKey(below: table) else { return }
        skipSpaces()
        guard peek() == "=" else { return }
        advance()
        skipSpaces()
        scanValue(at: path)
    }

    /// A possibly dotted key and the location of its last component; records the location
    /// of each of its components.
    private mutating func scanKey(below parent: ConfigKeyPath) -> (ConfigKeyPath, SourceLocation)? {
        var path = parent
        while true {
            let location = SourceLocation(line: line, column: column)
            guard let key = scanSimpleKey() else { return nil }
            path = path.appending(key)
            record(path, at: location)
            skipSpaces()
            guard peek() == "." else { return (path, location) }
            advance()
            skipSpaces()
        }
    }

    private mutating func scanSimpleKey() -> String? {
        switch peek() {
        case "\"": return scanBasicString()
        case "'": return scanLiteralString()
        default:
            var key = ""
            while let next = peek(), Self.isBareKeyScalar(next) {
                key.unicodeScalars.append(next)
                advance()
            }
            return key.isEmpty ? nil : key
        }
    }

    // MARK: Values

    private mutating func scanValue(at path: ConfigKeyPath) {
        switch peek() {
        case "\"":
            if peek(1) == "\"" && peek(2) == "\"" { skipMultilineString(quote: "\"") } else { _ = scanBasicString() }
        case "'":
            if peek(1) == "'" && peek(2) == "'" { skipMultilineString(quote: "'") } else { _ = scanLiteralString() }
        case "[": scanArray(at: path)
        case "{": scanInlineTable(at: path)
        default:
            // Numbers, booleans and dates; a date-time may contain one space, so stop only
            // where a value must end.
            while let next = peek(), !",]}#\n\r".unicodeScalars.contains(next) { advance() }
        }
    }

    private mutating func scanArray(at path: ConfigKeyPath) {
        advance()
        var element = 0
        while true {
            skipTrivia(acrossLines: true)
            guard let next = peek(), next != "]" else { break }
            let start = index
            record(path.appending(index: element), at: SourceLocation(line: line, column: column))
            scanValue(at: path.appending(index: element))
            element += 1
            skipTrivia(acrossLines: true)
            if peek() == "," { advance() }
            if index == start { return }
        }
        if peek() == "]" { advance() }
    }

    private mutating func scanInlineTable(at path: ConfigKeyPath) {
        advance()
        while true {
            skipTrivia(acrossLines: true)
            guard let next = peek(), next != "}" else { break }
            let start = index
            scanKeyValue(in: path)
            skipTrivia(acrossLines: true)
            if peek() == "," { advance() }
            if index == start { return }
        }
        if peek() == "}" { advance() }
    }

    // MARK: Strings

    /// A single-line basic string, escapes decoded (keys may be written this way).
    private mutating func scanBasicString() -> String {
        advance()
        var text = ""
        while let next = peek(), next != "\"", next != "\n" {
            advance()
            guard next == "\\", let escaped = peek() else {
                text.unicodeScalars.append(next)
                continue
            }
            advance()
            text.unicodeScalars.append(scanEscape(escaped))
        }
        if peek() == "\"" { advance() }
        return text
    }

    /// The character an escape sequence stands for; `escaped` follows the backslash.
    private mutating func scanEscape(_ escaped: Unicode.Scalar) -> Unicode.Scalar {
        switch escaped {
        case "b": return "\u{08}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "e": return "\u{1B}"
        case "u", "U", "x":
            let width = escaped == "u" ? 4 : escaped == "U" ? 8 : 2
            var hex = ""
            for _ in 0..<width {
                guard let digit = peek(), digit.properties.isASCIIHexDigit else { break }
                hex.unicodeScalars.append(digit)
                advance()
            }
            return UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init) ?? "\u{FFFD}"
        default: return escaped
        }
    }

    private mutating func scanLiteralString() -> String {
        advance()
        var text = ""
        while let next = peek(), next != "'", next != "\n" {
            text.unicodeScalars.append(next)
            advance()
        }
        if peek() == "'" { advance() }
        return text
    }

    /// `"""…"""` or `'''…'''`; up to two quotes may directly precede the closing three.
    private mutating func skipMultilineString(quote: Unicode.Scalar) {
        advance(3)
        while let next = peek() {
            if next == "\\" && quote == "\"" {
                advance(2)
            } else if next == quote && peek(1) == quote && peek(2) == quote {
                advance(3)
                for _ in 0..<2 where peek() == quote { advance() }
                return
            } else {
                advance()
            }
        }
    }

    // MARK: Characters

    private static func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCIILetterOrDigit || scalar == "_" || scalar == "-"
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func advance(_ count: Int = 1) {
        for _ in 0..<count where index < scalars.count {
            if scalars[index] == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += 1
        }
    }

    private mutating func skipSpaces() {
        while peek() == " " || peek() == "\t" { advance() }
    }

    /// Spaces and comments, and line breaks too when `acrossLines`.
    private mutating func skipTrivia(acrossLines: Bool) {
        while let next = peek() {
            if next == " " || next == "\t" || (acrossLines && (next == "\n" || next == "\r")) {
                advance()
            } else if next == "#" {
                while let commented = peek(), commented != "\n" { advance() }
            } else {
                return
            }
        }
    }

    private mutating func record(_ path: ConfigKeyPath, at location: SourceLocation) {
        if locations[path] == nil { locations[path] = location }
    }
}
