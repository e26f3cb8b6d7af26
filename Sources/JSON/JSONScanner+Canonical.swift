/// One JSON value copied in the form ``JSONValue/write(to:)`` gives it (compact, object
/// members sorted by their keys' UTF-8 bytes, the same escapes and number text), without
/// building the tree: the daemon keeps each snapshot an extension sends in that form.
///
/// Scalars the SDKs write are already in that form and are copied as they are; an object's
/// members are put in order when they are not. It declines (`false`) what it would have to
/// decode to write (escapes other than the written ones and `\/`, numbers other than
/// integers of at most 15 digits, which are converted as the tree would convert them), keys
/// that are not printable ASCII without escapes (other keys may be equal as `String`s but
/// not as bytes), a key given twice, and anything ``JSONParser`` refuses.
extension JSONScanner {
    /// Reads one value and appends its written form to `output`; `depth` is the number of
    /// arrays and objects it is nested in (bounded as by the parser's `limits`).
    package mutating func canonicalValue(into output: inout [UInt8], depth: Int, limits: JSONLimits = .standard) -> Bool {
        var members: [MemberSpan] = []
        members.reserveCapacity(16)
        return canonicalValue(into: &output, depth: depth, maxDepth: limits.maxDepth, members: &members)
    }

    /// Where a member (`"key":value`) was written in the output, and its key without quotes.
    struct MemberSpan {
        var start: Int
        var keyEnd: Int
        var end: Int
        var keyStart: Int { start + 1 }
    }

    private mutating func canonicalValue(into output: inout [UInt8], depth: Int, maxDepth: Int, members: inout [MemberSpan]) -> Bool {
        skipWhitespace()
        guard let first = next else { return false }
        switch first {
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { return false }
            return canonicalObject(into: &output, depth: depth + 1, maxDepth: maxDepth, members: &members)
        case UInt8(ascii: "["):
            guard depth < maxDepth else { return false }
            advance(by: 1)
            output.append(UInt8(ascii: "["))
            if consume(UInt8(ascii: "]")) {
                output.append(UInt8(ascii: "]"))
                return true
            }
            repeat {
                guard canonicalValue(into: &output, depth: depth + 1, maxDepth: maxDepth, members: &members) else { return false }
                output.append(UInt8(ascii: ","))
            } while consume(UInt8(ascii: ","))
            output[output.count - 1] = UInt8(ascii: "]")
            return consume(UInt8(ascii: "]"))
        case UInt8(ascii: "\""): return canonicalString(into: &output)
        case UInt8(ascii: "t"): return copyLiteral("true", into: &output)
        case UInt8(ascii: "f"): return copyLiteral("false", into: &output)
        case UInt8(ascii: "n"): return copyLiteral("null", into: &output)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return canonicalNumber(into: &output)
        default: return false
        }
    }

    private mutating func copyLiteral(_ word: StaticString, into output: inout [UInt8]) -> Bool {
        guard literal(word) else { return false }
        word.withUTF8Buffer { output.append(contentsOf: $0) }
        return true
    }

    private mutating func canonicalObject(into output: inout [UInt8], depth: Int, maxDepth: Int, members: inout [MemberSpan]) -> Bool {
        advance(by: 1)
        output.append(UInt8(ascii: "{"))
        if consume(UInt8(ascii: "}")) {
            output.append(UInt8(ascii: "}"))
            return true
        }
        let first = members.count
        defer { members.removeSubrange(first...) }
        var isSorted = true
        repeat {
            if members.count > first { output.append(UInt8(ascii: ",")) }
            let start = output.count
            skipWhitespace()
            guard canonicalKey(into: &output) else { return false }
            let keyEnd = output.count - 1
            guard consume(UInt8(ascii: ":")) else { return false }
            output.append(UInt8(ascii: ":"))
            guard canonicalValue(into: &output, depth: depth, maxDepth: maxDepth, members: &members) else { return false }
            let member = MemberSpan(start: start, keyEnd: keyEnd, end: output.count)
            if isSorted, members.count > first, !Self.key(of: members[members.count - 1], precedes: member, in: output) {
                isSorted = false
            }
            members.append(member)
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")) else { return false }
        if !isSorted {
            guard Self.sortMembers(&members[first...], of: &output) else { return false }
        }
        output.append(UInt8(ascii: "}"))
        return true
    }

    /// Rewrites the members (the last thing in `output`) in key order; `false` for a key
    /// given twice, which the tree would keep once.
    private static func sortMembers(_ members: inout ArraySlice<MemberSpan>, of output: inout [UInt8]) -> Bool {
        let regionStart = members.first!.start
        let region = Array(output[regionStart...])
        members.sort { key(of: $0, precedes: $1, in: output) }
        for (earlier, later) in zip(members, members.dropFirst()) where !key(of: earlier, precedes: later, in: output) {
            return false
        }
        output.removeSubrange(regionStart...)
        for (index, member) in members.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: region[(member.start - regionStart)..<(member.end - regionStart)])
        }
        return true
    }

    /// Whether the key of `earlier` comes before that of `later`, by their bytes.
    private static func key(of earlier: MemberSpan, precedes later: MemberSpan, in output: [UInt8]) -> Bool {
        output.withUnsafeBufferPointer { bytes in
            let (earlierCount, laterCount) = (earlier.keyEnd - earlier.keyStart, later.keyEnd - later.keyStart)
            for offset in 0..<min(earlierCount, laterCount) {
                let (left, right) = (bytes[earlier.keyStart + offset], bytes[later.keyStart + offset])
                if left != right { return left < right }
            }
            return earlierCount < laterCount
        }
    }

    /// A key of ASCII without escapes, copied with its quotes.
    private mutating func canonicalKey(into output: inout [UInt8]) -> Bool {
        guard let key = rawString(), key.allSatisfy({ $0 < 0x80 }) else { return false }
        output.append(UInt8(ascii: "\""))
        output.append(contentsOf: key)
        output.append(UInt8(ascii: "\""))
        return true
    }

    /// A string, its UTF-8 checked; escapes written as ``JSONText/appendString(_:to:)`` writes them.
    private mutating func canonicalString(into output: inout [UInt8]) -> Bool {
        advance(by: 1)
        output.append(UInt8(ascii: "\""))
        var runStart = position
        while true {
            skipPlainASCII()
            guard let byte = next else { return false }
            switch byte {
            case UInt8(ascii: "\""):
                output.append(contentsOf: bytes(from: runStart))
                output.append(byte)
                advance(by: 1)
                return true
            case UInt8(ascii: "\\"):
                output.append(contentsOf: bytes(from: runStart))
                guard canonicalEscape(into: &output) else { return false }
                runStart = position
            case 0..<0x20:
                return false
            default:
                guard let length = UTF8Sequence.length(first: byte, peek: { self.peek($0) }) else { return false }
                advance(by: length)
            }
        }
    }

    /// One escape, from its backslash: the written ones copied, `\/` and `\u00XX` (below
    /// 0x80) written as the tree would write the character; other `\u` escapes decline.
    private mutating func canonicalEscape(into output: inout [UInt8]) -> Bool {
        guard let escaped = peek(1) else { return false }
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"),
            UInt8(ascii: "t"):
            output.append(UInt8(ascii: "\\"))
            output.append(escaped)
            advance(by: 2)
            return true
        case UInt8(ascii: "/"):
            output.append(escaped)
            advance(by: 2)
            return true
        case UInt8(ascii: "u"):
            var value: UInt32 = 0
            for offset in 2..<6 {
                guard let digit = peek(offset).flatMap(JSONParser.hexValue) else { return false }
                value = value << 4 | UInt32(digit)
            }
            guard value < 0x80 else { return false }
            advance(by: 6)
            JSONText.appendScalar(UInt8(value), to: &output)
            return true
        default:
            return false
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: a whole number of at most 15
    /// digits (exact as a `Double`, written without an exponent) as it is, any other
    /// through `Double`, as the tree holds it.
    private mutating func canonicalNumber(into output: inout [UInt8]) -> Bool {
        guard let number = numberText() else { return false }
        if number.isWhole {
            output.append(contentsOf: number.text)
            return true
        }
        guard let value = Double(String(decoding: number.text, as: UTF8.self)), let written = JSONText.number(value) else { return false }
        output.append(contentsOf: written.utf8)
        return true
    }
}

/// The length of a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
/// surrogates, nothing past U+10FFFF), as `String(validating:)` accepts them.
enum UTF8Sequence {
    /// `first` is the lead byte (0x80 or above); `peek(n)` the byte n places after it.
    static func length(first: UInt8, peek: (Int) -> UInt8?) -> Int? {
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, secondRange) = (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, secondRange) = (3, 0x80...0x9F)
        case 0xF0: (length, secondRange) = (4, 0x90...0xBF)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, secondRange) = (4, 0x80...0x8F)
        default: return nil
        }
        guard let second = peek(1), secondRange.contains(second) else { return nil }
        for offset in 2..<length {
            guard let byte = peek(offset), (0x80...0xBF).contains(byte) else { return nil }
        }
        return length
    }
}
