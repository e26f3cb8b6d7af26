/// A forward-only reader of JSON in place, for the protocols' fast paths (a host's `pull`,
/// an extension's `result`): it takes only what it can read without building a tree and
/// says `nil` or `false` for anything else, and the caller falls back to the general parser,
/// which gives the same value or the precise error. So it may decline valid JSON, but it
/// never accepts a byte the parser (``JSONParser``) refuses. Inlinable: the fast paths
/// read with it from other modules, once per request.
package struct JSONScanner {
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var position = 0

    @inlinable
    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether nothing but whitespace is left.
    @inlinable
    package mutating func isAtEnd() -> Bool {
        skipWhitespace()
        return position == bytes.count
    }

    /// Reads `{ "key": value, ... }`, letting `member` read each value; `false` when the
    /// object is not well-formed or `member` declines a key or fails to read its value.
    @inlinable
    package mutating func object(_ member: (_ key: JSONScannedKey, _ scanner: inout JSONScanner) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        return consume(UInt8(ascii: "}")) || members(member)
    }

    /// Reads the rest of an object from its next member on: `"key": value, ... }`.
    @inlinable
    package mutating func members(_ member: (_ key: JSONScannedKey, _ scanner: inout JSONScanner) -> Bool) -> Bool {
        repeat {
            guard let key = rawString().map(JSONScannedKey.init(bytes:)), consume(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            let before = position
            guard member(key, &self), position > before else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }

    /// The bytes between quotes (in place, not copied); `nil` for escapes, control
    /// characters or no string. They are not checked to be UTF-8.
    @inlinable
    package mutating func rawString() -> UnsafeBufferPointer<UInt8>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return UnsafeBufferPointer(rebasing: bytes[start..<position - 1])
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            position += 1
        }
        return nil
    }

    /// A string without escapes, as a `String`; `nil` for escapes or invalid UTF-8.
    @inlinable
    package mutating func plainString() -> String? {
        rawString().flatMap(String.init(validUTF8:))
    }

    /// A JSON integer without sign, fraction or exponent, at most `max`.
    @inlinable
    package mutating func integer(max: UInt64) -> UInt64? {
        skipWhitespace()
        let start = position
        var value: UInt64 = 0
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            guard position - start < 16 else { return nil }
            value = value * 10 + UInt64(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        let digits = position - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0"), value <= max else { return nil }
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        return value
    }

    /// `true` or `false`.
    @inlinable
    package mutating func boolean() -> Bool? {
        skipWhitespace()
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// A number as the parser takes it, `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`,
    /// in place; `isWhole` when it is a whole number of at most 15 digits (exact as a
    /// `Double`, written without an exponent).
    mutating func numberText() -> (text: UnsafeBufferPointer<UInt8>, isWhole: Bool)? {
        skipWhitespace()
        let start = position
        _ = skip(UInt8(ascii: "-"))
        let digitsStart = position
        if skip(UInt8(ascii: "0")) {
            if let byte = next, Self.isDigit(byte) { return nil }
        } else {
            guard skipDigits() else { return nil }
        }
        var isWhole = position - digitsStart <= 15
        if skip(UInt8(ascii: ".")) {
            guard skipDigits() else { return nil }
            isWhole = false
        }
        if skip(UInt8(ascii: "e")) || skip(UInt8(ascii: "E")) {
            _ = skip(UInt8(ascii: "+")) || skip(UInt8(ascii: "-"))
            guard skipDigits() else { return nil }
            isWhole = false
        }
        return (bytes(from: start), isWhole)
    }

    /// A number as a finite `Double`, converted as the parser's tree converts it.
    package mutating func double() -> Double? {
        numberText().flatMap { Double(String(decoding: $0.text, as: UTF8.self)) }.flatMap { $0.isFinite ? $0 : nil }
    }

    private mutating func skipDigits() -> Bool {
        let start = position
        while let byte = next, Self.isDigit(byte) { advance(by: 1) }
        return position > start
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Steps over `null` if it is next.
    @inlinable
    package mutating func null() -> Bool {
        skipWhitespace()
        return literal("null")
    }

    /// Steps over `word` if it is next (no whitespace skipped): also a fast path's
    /// template, a message's punctuation and keys as its senders write them.
    @inlinable
    package mutating func literal(_ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard length > 0 else { return true }
        guard position + length <= bytes.count, let here = bytes.baseAddress.map({ UnsafeRawPointer($0 + position) }) else { return false }
        // Eight bytes at a time: a fast path's template is tens of bytes per message.
        let matches = word.withUTF8Buffer { word in
            let there = UnsafeRawPointer(word.baseAddress!)
            var offset = 0
            while offset + 8 <= length {
                guard here.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == there.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                else { return false }
                offset += 8
            }
            while offset < length {
                guard here.load(fromByteOffset: offset, as: UInt8.self) == there.load(fromByteOffset: offset, as: UInt8.self) else { return false }
                offset += 1
            }
            return true
        }
        if matches { position += length }
        return matches
    }

    /// Skips whitespace, then steps over `byte` if it is next.
    @inlinable
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        return skip(byte)
    }

    /// Steps over `byte` if it is next.
    @inlinable
    mutating func skip(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// How many bytes are left (room enough, most often, for a value read from here
    /// written again).
    package var remainingCount: Int { bytes.count - position }

    /// The next byte, if any (whitespace included).
    @inlinable
    package var next: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Steps over `count` bytes.
    mutating func advance(by count: Int) {
        position += count
    }

    /// The bytes from `start` to the position.
    func bytes(from start: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[start..<position])
    }

    /// The byte `offset` places past the position, if there is one.
    func peek(_ offset: Int) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    /// Steps over what a string holds as it is written (printable ASCII but `"` and `\`):
    /// most of most strings.
    mutating func skipPlainASCII() {
        while position < bytes.count {
            let byte = bytes[position]
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return }
            position += 1
        }
    }

    @inlinable
    mutating func skipWhitespace() {
        position = JSONWhitespace.end(in: bytes, from: position)
    }
}

/// An object key, compared against the names a message may have without copying it.
package struct JSONScannedKey {
    package let bytes: UnsafeBufferPointer<UInt8>

    @inlinable
    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Lets `switch` match a key against string literals; lengths first, as most differ.
    @inlinable
    package static func ~= (name: StaticString, key: JSONScannedKey) -> Bool {
        name.utf8CodeUnitCount == key.bytes.count
            && name.withUTF8Buffer { name in name.indices.allSatisfy { name[$0] == key.bytes[$0] } }
    }
}
