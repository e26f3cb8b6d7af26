/// Values: which kind starts here, and the compound ones (arrays and inline tables).
extension TOMLParser {
    /// The value here, at `depth` levels below the root.
    mutating func value(depth: Int) throws(TOMLError) -> TOMLNode {
        let position = cursor.position
        guard depth <= Self.maximumDepth else {
            throw TOMLError(at: position, "values nest deeper than \(Self.maximumDepth) levels")
        }
        let value: TOMLValue
        switch cursor.peek() {
        case UInt8(ascii: "\"")?:
            value = .string(cursor.looksAt("\"\"\"") ? try multilineBasicString() : try basicString())
        case UInt8(ascii: "'")?:
            value = .string(cursor.looksAt("'''") ? try multilineLiteralString() : try literalString())
        case UInt8(ascii: "t")? where cursor.looksAt("true"):
            cursor.advance(4)
            value = .boolean(true)
        case UInt8(ascii: "f")? where cursor.looksAt("false"):
            cursor.advance(5)
            value = .boolean(false)
        case UInt8(ascii: "[")?:
            value = try array(depth: depth)
        case UInt8(ascii: "{")?:
            value = try inlineTable(depth: depth)
        case let byte?
        where Self.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "i") || byte == UInt8(ascii: "n"):
            value = try numberOrDateTime()
        default:
            throw expected("a value (a string, number, boolean, date, array or inline table)")
        }
        return TOMLNode(value, at: position)
    }

    /// `[ v, v, ]`: line breaks and comments may sit between the elements.
    private mutating func array(depth: Int) throws(TOMLError) -> TOMLValue {
        cursor.advance()
        var elements: [TOMLNode] = []
        while true {
            try skipArrayTrivia()
            if cursor.peek() == UInt8(ascii: "]") { break }
            elements.append(try value(depth: depth + 1))
            try skipArrayTrivia()
            if cursor.peek() == UInt8(ascii: ",") {
                cursor.advance()
            } else if cursor.peek() != UInt8(ascii: "]") {
                throw expected("\",\" or \"]\" after an array element")
            }
        }
        cursor.advance()
        return .array(elements)
    }

    private mutating func skipArrayTrivia() throws(TOMLError) {
        while true {
            skipSpaces()
            if cursor.peek() == UInt8(ascii: "#") { try comment() }
            guard try lineBreak() else { return }
        }
    }

    /// `{ k = v, k = v }` on one line, without a trailing comma (TOML 1.0).
    private mutating func inlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        cursor.advance()
        var tree = TableTree(rootDepth: depth, maximumDepth: Self.maximumDepth)
        skipSpaces()
        if cursor.peek() == UInt8(ascii: "}") {
            cursor.advance()
            return .table(tree.finish())
        }
        while true {
            skipSpaces()
            try keyValue(into: tree.root, of: &tree)
            skipSpaces()
            if cursor.peek() == UInt8(ascii: "}") { break }
            guard cursor.peek() == UInt8(ascii: ",") else {
                throw expected("\",\" or \"}\" after a value of the inline table (which must fit on one line)")
            }
            cursor.advance()
        }
        cursor.advance()
        return .table(tree.finish())
    }
}
