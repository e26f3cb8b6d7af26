/// A position in the document's UTF-8 bytes that keeps its line and column as it moves.
struct Cursor {
    private let bytes: [UInt8]
    private(set) var offset = 0
    private(set) var position = TOMLPosition(line: 1, column: 1)

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    /// The byte `ahead` bytes on, or `nil` past the end.
    func peek(_ ahead: Int = 0) -> UInt8? {
        ahead < bytes.count - offset ? bytes[offset + ahead] : nil
    }

    /// Whether the bytes here spell `word`.
    func looksAt(_ word: StaticString) -> Bool {
        guard word.utf8CodeUnitCount <= bytes.count - offset else { return false }
        return word.withUTF8Buffer { $0.elementsEqual(bytes[offset..<offset + $0.count]) }
    }

    /// Moves past `count` bytes (fewer at the end).
    mutating func advance(_ count: Int = 1) {
        for _ in 0..<count {
            guard let byte = peek() else { return }
            offset += 1
            if byte == UInt8(ascii: "\n") {
                position.line += 1
                position.column = 1
            } else if byte & 0xC0 != 0x80 {
                position.column += 1
            }
        }
    }

    /// Moves past one UTF-8 encoded scalar and returns its bytes; throws at a byte sequence
    /// that is not UTF-8 (overlong forms and surrogates included).
    mutating func takeScalar() throws(TOMLError) -> ArraySlice<UInt8> {
        let start = offset
        guard let length = scalarLength() else {
            throw TOMLError(at: position, "the file is not valid UTF-8 here")
        }
        advance(length)
        return bytes[start..<offset]
    }

    /// The length of the well-formed UTF-8 sequence here (RFC 3629, table 3-7 of Unicode), if any.
    private func scalarLength() -> Int? {
        guard let lead = peek() else { return nil }
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: return nil
        }
        guard let second = peek(1), secondRange.contains(second) else { return nil }
        for ahead in 2..<length {
            guard let next = peek(ahead), (0x80...0xBF).contains(next) else { return nil }
        }
        return length
    }

    /// What is here, for "found …" in messages.
    var found: String {
        guard let byte = peek() else { return "the end of the file" }
        switch byte {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"): return "the end of the line"
        case 0x20...0x7E: return "\"\(Character(Unicode.Scalar(byte)))\""
        case 0x00..<0x20, 0x7F: return "the control character \(Self.codePoint(UInt32(byte)))"
        default:
            guard let length = scalarLength() else { return "a byte that is not UTF-8" }
            return "\"\(String(decoding: bytes[offset..<offset + length], as: UTF8.self))\""
        }
    }

    /// `U+001F`.
    static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
