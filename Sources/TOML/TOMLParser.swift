// The `TOML` module parses TOML 1.0 documents into a tree of values that each know where
// they were written. It owns the grammar, the table-definition rules and positioned syntax
// errors; it must not know any config schema, read files, or depend on Foundation or C++.
//
// It never traps: every input, however hostile, ends in a tree or a `TOMLError`, nesting is
// bounded (`maximumDepth`) and what it allocates grows linearly with the input.

/// Parses TOML 1.0 documents (plus the `\e` escape of TOML 1.1) into a ``TOMLTable``.
///
/// One pass over the UTF-8 bytes, recursive descent with a depth limit. The first error ends
/// the parse: TOML gives no safe place to resume.
public struct TOMLParser {
    /// How deep tables and arrays may nest, counting every level from the root.
    public static let maximumDepth = 100

    var cursor: Cursor

    private init(_ bytes: [UInt8]) { cursor = Cursor(bytes) }

    /// The document `text`, or the first error in it.
    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        try parse(utf8: Array(text.utf8))
    }

    /// The document in `bytes`, which must be UTF-8 (a leading byte order mark is skipped).
    public static func parse(utf8 bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        var parser = TOMLParser(bytes)
        return try parser.document()
    }

    // MARK: - Statements

    private mutating func document() throws(TOMLError) -> TOMLTable {
        if cursor.looksAt("\u{FEFF}") { cursor.advance(3) }
        var tree = TableTree(rootDepth: 0, maximumDepth: Self.maximumDepth)
        var section = tree.root
        while true {
            skipSpaces()
            guard let byte = cursor.peek() else { break }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
                try endOfLine(after: "")
                continue
            case UInt8(ascii: "["):
                section = try header(in: &tree)
                try endOfLine(after: " after the table header")
            default:
                try keyValue(into: section, of: &tree)
                try endOfLine(after: " after the value")
            }
        }
        return tree.finish()
    }

    /// `[a.b]` or `[[a.b]]`; returns the table that the following keys belong to.
    private mutating func header(in tree: inout TableTree) throws(TOMLError) -> Int {
        cursor.advance()
        let isArray = cursor.peek() == UInt8(ascii: "[")
        if isArray { cursor.advance() }
        skipSpaces()
        let path = try key()
        let closing = isArray ? "\"]]\" to close the array-of-tables header" : "\"]\" to close the table header"
        for _ in 0..<(isArray ? 2 : 1) {
            guard cursor.peek() == UInt8(ascii: "]") else { throw expected(closing) }
            cursor.advance()
        }
        return try tree.openSection(path, isArray: isArray)
    }

    /// `key = value` into `table` of `tree`.
    mutating func keyValue(into table: Int, of tree: inout TableTree) throws(TOMLError) {
        let path = try key()
        guard cursor.peek() == UInt8(ascii: "=") else { throw expected("\"=\" after the key") }
        cursor.advance()
        skipSpaces()
        let node = try value(depth: tree.depth(of: table) + path.count)
        try tree.define(path, as: node, in: table)
    }

    /// A key, dotted or not, and the spaces after it.
    private mutating func key() throws(TOMLError) -> [TableTree.KeyPart] {
        var parts: [TableTree.KeyPart] = []
        while true {
            let position = cursor.position
            let name: String
            switch cursor.peek() {
            case UInt8(ascii: "\""): name = try basicString()
            case UInt8(ascii: "'"): name = try literalString()
            case let byte? where Self.isBareKeyByte(byte):
                var bytes: [UInt8] = []
                while let next = cursor.peek(), Self.isBareKeyByte(next) {
                    bytes.append(next)
                    cursor.advance()
                }
                name = String(decoding: bytes, as: UTF8.self)
            default:
                throw expected("a key (letters, digits, \"_\" and \"-\", or a quoted string)")
            }
            parts.append(TableTree.KeyPart(name: name, position: position))
            guard parts.count <= Self.maximumDepth else {
                throw TOMLError(at: position, "a key has more than \(Self.maximumDepth) parts")
            }
            skipSpaces()
            guard cursor.peek() == UInt8(ascii: ".") else { return parts }
            cursor.advance()
            skipSpaces()
        }
    }

    // MARK: - Trivia

    mutating func skipSpaces() {
        while cursor.peek() == UInt8(ascii: " ") || cursor.peek() == UInt8(ascii: "\t") { cursor.advance() }
    }

    /// Spaces, an optional comment, then a line break or the end of the file.
    private mutating func endOfLine(after what: String) throws(TOMLError) {
        skipSpaces()
        if cursor.peek() == UInt8(ascii: "#") { try comment() }
        if cursor.isAtEnd { return }
        guard try lineBreak() else { throw expected("the end of the line\(what)") }
    }

    /// Moves past a line break (LF or CRLF) if there is one here; a CR alone is an error.
    mutating func lineBreak() throws(TOMLError) -> Bool {
        switch cursor.peek() {
        case UInt8(ascii: "\n"):
            cursor.advance()
            return true
        case UInt8(ascii: "\r"):
            guard cursor.peek(1) == UInt8(ascii: "\n") else {
                throw TOMLError(at: cursor.position, "a carriage return must be followed by a line feed")
            }
            cursor.advance(2)
            return true
        default:
            return false
        }
    }

    /// `# …` up to the end of the line, which is left for the caller.
    mutating func comment() throws(TOMLError) {
        cursor.advance()
        while let byte = cursor.peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r") && cursor.peek(1) == UInt8(ascii: "\n") { return }
            if byte >= 0x80 {
                _ = try cursor.takeScalar()
            } else {
                try rejectControlCharacter(in: "a comment")
                cursor.advance()
            }
        }
    }

    /// Throws if the byte here is a control character other than tab.
    func rejectControlCharacter(in context: String) throws(TOMLError) {
        guard let byte = cursor.peek(), byte < 0x20 && byte != UInt8(ascii: "\t") || byte == 0x7F else { return }
        throw TOMLError(at: cursor.position, "\(cursor.found) is not allowed in \(context)")
    }

    // MARK: - Errors

    /// "expected …, found …" at the cursor.
    func expected(_ what: String) -> TOMLError {
        TOMLError(at: cursor.position, "expected \(what), found \(cursor.found)")
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    static func isDigit(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
