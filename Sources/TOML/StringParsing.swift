/// The four kinds of strings: basic `"…"`, literal `'…'`, and their multi-line forms.
extension TOMLParser {
    /// `"…"` with escapes, on one line.
    mutating func basicString() throws(TOMLError) -> String {
        let start = cursor.position
        cursor.advance()
        var bytes: [UInt8] = []
        while true {
            switch cursor.peek() {
            case UInt8(ascii: "\"")?:
                cursor.advance()
                return String(decoding: bytes, as: UTF8.self)
            case UInt8(ascii: "\\")?:
                try escape(into: &bytes)
            case nil, UInt8(ascii: "\n")?, UInt8(ascii: "\r")?:
                throw unterminated("\"", startingAt: start, hint: "; a string spanning lines is written \"\"\"…\"\"\"")
            default:
                try character(into: &bytes, in: "a string")
            }
        }
    }

    /// `'…'`, taken as written, on one line.
    mutating func literalString() throws(TOMLError) -> String {
        let start = cursor.position
        cursor.advance()
        var bytes: [UInt8] = []
        while true {
            switch cursor.peek() {
            case UInt8(ascii: "'")?:
                cursor.advance()
                return String(decoding: bytes, as: UTF8.self)
            case nil, UInt8(ascii: "\n")?, UInt8(ascii: "\r")?:
                throw unterminated("'", startingAt: start, hint: "; a string spanning lines is written '''…'''")
            default:
                try character(into: &bytes, in: "a literal string")
            }
        }
    }

    /// `"""…"""` with escapes and a backslash that joins lines.
    mutating func multilineBasicString() throws(TOMLError) -> String {
        try multilineString(quote: UInt8(ascii: "\"")) { parser, bytes throws(TOMLError) in
            guard parser.cursor.peek() == UInt8(ascii: "\\") else { return false }
            try parser.escape(into: &bytes, lineEndingAllowed: true)
            return true
        }
    }

    /// `'''…'''`, taken as written.
    mutating func multilineLiteralString() throws(TOMLError) -> String {
        try multilineString(quote: UInt8(ascii: "'")) { _, _ throws(TOMLError) in false }
    }

    /// The body of a multi-line string: a line break right after the opening quotes is
    /// dropped; one or two quotes may end the content just before the closing three.
    /// `special` handles what only one kind knows (escapes) and says whether it did.
    private mutating func multilineString(
        quote: UInt8, special: (inout TOMLParser, inout [UInt8]) throws(TOMLError) -> Bool
    ) throws(TOMLError) -> String {
        let start = cursor.position
        let delimiter = String(repeating: Character(Unicode.Scalar(quote)), count: 3)
        cursor.advance(3)
        _ = try lineBreak()
        var bytes: [UInt8] = []
        while true {
            if cursor.peek() == quote {
                var run = 0
                while cursor.peek(run) == quote { run += 1 }
                guard run >= 3 else {
                    bytes.append(contentsOf: repeatElement(quote, count: run))
                    cursor.advance(run)
                    continue
                }
                guard run <= 5 else {
                    cursor.advance(5)
                    throw TOMLError(at: cursor.position, "\(delimiter) already closed the string: remove this quote")
                }
                bytes.append(contentsOf: repeatElement(quote, count: run - 3))
                cursor.advance(run)
                return String(decoding: bytes, as: UTF8.self)
            }
            if try special(&self, &bytes) { continue }
            switch cursor.peek() {
            case nil:
                throw unterminated(delimiter, startingAt: start, hint: "")
            case UInt8(ascii: "\n")?, UInt8(ascii: "\r")?:
                _ = try lineBreak()
                bytes.append(UInt8(ascii: "\n"))
            default:
                try character(into: &bytes, in: "a string")
            }
        }
    }

    /// Appends the character here (a tab, printable ASCII or a UTF-8 scalar); control characters are errors.
    private mutating func character(into bytes: inout [UInt8], in context: String) throws(TOMLError) {
        guard let byte = cursor.peek() else { return }
        if byte >= 0x80 {
            bytes.append(contentsOf: try cursor.takeScalar())
        } else {
            try rejectControlCharacter(in: context)
            bytes.append(byte)
            cursor.advance()
        }
    }

    /// A backslash escape. In a multi-line string, a backslash that ends its line (spaces may
    /// follow it) drops the line break and all white space up to the next character.
    private mutating func escape(into bytes: inout [UInt8], lineEndingAllowed: Bool = false) throws(TOMLError) {
        let start = cursor.position
        cursor.advance()
        let simple: UInt8?
        switch cursor.peek() {
        case UInt8(ascii: "b")?: simple = 0x08
        case UInt8(ascii: "t")?: simple = 0x09
        case UInt8(ascii: "n")?: simple = 0x0A
        case UInt8(ascii: "f")?: simple = 0x0C
        case UInt8(ascii: "r")?: simple = 0x0D
        case UInt8(ascii: "e")?: simple = 0x1B  // TOML 1.1; harmless in 1.0 documents
        case UInt8(ascii: "\"")?: simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\")?: simple = UInt8(ascii: "\\")
        case UInt8(ascii: "u")?, UInt8(ascii: "U")?:
            simple = nil
        case let byte? where lineEndingAllowed && [0x20, 0x09, 0x0A, 0x0D].contains(byte):
            skipSpaces()
            guard try lineBreak() else {
                throw TOMLError(at: start, "a backslash followed by spaces must end the line")
            }
            while true {
                skipSpaces()
                guard try lineBreak() else { return }
            }
        default:
            throw TOMLError(
                at: start,
                "\\\(cursor.isAtEnd ? "" : cursor.found) is not an escape; expected \\b \\t \\n \\f \\r \\e \\\" \\\\ \\uXXXX or \\UXXXXXXXX"
            )
        }
        if let simple {
            bytes.append(simple)
            cursor.advance()
            return
        }
        let width = cursor.peek() == UInt8(ascii: "u") ? 4 : 8
        cursor.advance()
        var value: UInt32 = 0
        for _ in 0..<width {
            guard let byte = cursor.peek(), let digit = Self.hexDigit(byte) else {
                throw expected("\(width) hexadecimal digits after \\\(width == 4 ? "u" : "U")")
            }
            value = value << 4 | UInt32(digit)
            cursor.advance()
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw TOMLError(at: start, "\(Cursor.codePoint(value)) is not a Unicode scalar value")
        }
        bytes.append(contentsOf: String(scalar).utf8)
    }

    private func unterminated(_ delimiter: String, startingAt start: TOMLPosition, hint: String) -> TOMLError {
        TOMLError(at: cursor.position, "expected \(delimiter) to close the string opened at \(start)\(hint), found \(cursor.found)")
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
