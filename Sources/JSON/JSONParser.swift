/// Reads one JSON value (RFC 8259) from UTF-8 bytes into a ``JSONNode``: strict (no
/// trailing commas, no leading zeros, no invalid UTF-8, no lone surrogates) and bounded by
/// ``JSONLimits``.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let limits: JSONLimits
    private var position = 0
    private var depth = 0

    /// The one value `bytes` hold, surrounded by nothing but whitespace.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits = .standard) throws(JSONSyntaxError) -> JSONNode {
        guard bytes.count <= limits.maxBytes else {
            throw JSONSyntaxError(problem: "more than \(limits.maxBytes) bytes", offset: limits.maxBytes)
        }
        var parser = JSONParser(bytes: bytes, limits: limits)
        let node = try parser.value()
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected data after the value") }
        return node
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONNode {
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character")
        }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONNode {
        try enterContainer()
        var members: [(key: String, value: JSONNode)] = []
        if consume(UInt8(ascii: "}")) {
            depth -= 1
            return .object(members)
        }
        repeat {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try string()
            guard consume(UInt8(ascii: ":")) else { throw error("expected ':'") }
            members.append((key, try value()))
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")) else { throw error("expected ',' or '}'") }
        depth -= 1
        return .object(members)
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONNode {
        try enterContainer()
        var elements: [JSONNode] = []
        if consume(UInt8(ascii: "]")) {
            depth -= 1
            return .array(elements)
        }
        repeat {
            elements.append(try value())
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "]")) else { throw error("expected ',' or ']'") }
        depth -= 1
        return .array(elements)
    }

    /// Steps over the opening bracket, counting the depth.
    private mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= limits.maxDepth else { throw error("nested more than \(limits.maxDepth) levels deep") }
        position += 1
    }

    /// A string starting at the opening quote. Unescaped runs are validated as UTF-8 where
    /// they stand; only strings with escapes are copied byte by byte.
    private mutating func string() throws(JSONSyntaxError) -> String {
        position += 1
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                guard let text = String(validUTF8: run) else {
                    throw JSONSyntaxError(problem: "invalid UTF-8 in a string", offset: start)
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw error("unescaped control character in a string") }
            position += 1
        }
        throw JSONSyntaxError(problem: "unterminated string", offset: start - 1)
    }

    /// The rest of a string that has escapes, `start` being its first byte after the quote.
    private mutating func escapedString(from start: Int) throws(JSONSyntaxError) -> String {
        var decoded = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: decoded, as: UTF8.self) else {
                    throw JSONSyntaxError(problem: "invalid UTF-8 in a string", offset: start)
                }
                return text
            case UInt8(ascii: "\\"):
                try appendEscape(to: &decoded)
            case 0..<0x20:
                position -= 1
                throw error("unescaped control character in a string")
            default:
                decoded.append(byte)
            }
        }
        throw JSONSyntaxError(problem: "unterminated string", offset: start - 1)
    }

    /// One escape after its backslash, appended as UTF-8.
    private mutating func appendEscape(to decoded: inout [UInt8]) throws(JSONSyntaxError) {
        guard position < bytes.count else { throw error("unterminated string") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            let scalar = try escapedScalar()
            decoded.append(contentsOf: String(Character(scalar)).utf8)
        default:
            position -= 1
            throw error("invalid escape")
        }
    }

    /// The scalar of `\uXXXX` (after the `u`), combining a surrogate pair; a lone surrogate is an error.
    private mutating func escapedScalar() throws(JSONSyntaxError) -> Unicode.Scalar {
        let escapeStart = position - 2
        let first = try hexQuad()
        switch first {
        case 0xD800...0xDBFF:
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                throw JSONSyntaxError(problem: "lone surrogate in a string", offset: escapeStart)
            }
            position += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw JSONSyntaxError(problem: "lone surrogate in a string", offset: escapeStart)
            }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        case 0xDC00...0xDFFF:
            throw JSONSyntaxError(problem: "lone surrogate in a string", offset: escapeStart)
        default:
            return Unicode.Scalar(first)!
        }
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexValue(bytes[position]) else { throw error("invalid hex digit in a \\u escape") }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// The value of a hexadecimal digit (either case).
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as written.
    private mutating func number() throws(JSONSyntaxError) -> String {
        let start = position
        _ = skip(UInt8(ascii: "-"))
        if skip(UInt8(ascii: "0")) {
            if position < bytes.count, isDigit(bytes[position]) { throw error("leading zero in a number") }
        } else {
            try digits()
        }
        if skip(UInt8(ascii: ".")) { try digits() }
        if skip(UInt8(ascii: "e")) || skip(UInt8(ascii: "E")) {
            _ = skip(UInt8(ascii: "+")) || skip(UInt8(ascii: "-"))
            try digits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    /// One or more decimal digits.
    private mutating func digits() throws(JSONSyntaxError) {
        let start = position
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        guard position > start else { throw error("expected a digit") }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let length = word.utf8CodeUnitCount
        guard position + length <= bytes.count,
            word.withUTF8Buffer({ $0.elementsEqual(bytes[position..<position + length]) })
        else { throw error("unexpected character") }
        position += length
    }

    /// Skips whitespace, then steps over `byte` if it is next.
    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        return skip(byte)
    }

    private mutating func skip(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipWhitespace() {
        position = JSONWhitespace.end(in: bytes, from: position)
    }

    private func error(_ problem: String) -> JSONSyntaxError {
        JSONSyntaxError(problem: problem, offset: position)
    }
}
