/// The text of JSON scalars, written the way Foundation's `JSONEncoder` wrote them with
/// `.withoutEscapingSlashes`, so that every line the daemon writes keeps its bytes.
@usableFromInline
package enum JSONText {
    /// A string in quotes: `"` and `\` escaped, control characters as `\n`-style or `\u00XX`
    /// escapes, everything else (`/` and non-ASCII included) as its UTF-8.
    @usableFromInline
    package static func appendString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(of: byte, to: &output)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The decimal digits of `value`, without a `String` in between.
    @inlinable
    package static func appendDecimal(_ value: UInt64, to output: inout [UInt8]) {
        var divisor: UInt64 = 1
        while value / divisor >= 10 { divisor &*= 10 }
        repeat {
            output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / divisor % 10))
            divisor /= 10
        } while divisor > 0
    }

    /// How many digits ``appendDecimal(_:to:)`` writes for `value`.
    @inlinable
    package static func decimalDigitCount(_ value: UInt64) -> Int {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }

    /// The order of object keys: by their UTF-8 bytes, as Foundation's `.sortedKeys`.
    static func keyPrecedes(_ lhs: String, _ rhs: String) -> Bool {
        var (lhs, rhs) = (lhs, rhs)
        return lhs.withUTF8 { left in rhs.withUTF8 { right in left.lexicographicallyPrecedes(right) } }
    }

    /// An ASCII character inside a string's quotes, escaped as ``appendString(_:to:)`` would.
    static func appendScalar(_ byte: UInt8, to output: inout [UInt8]) {
        if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            appendEscape(of: byte, to: &output)
        } else {
            output.append(byte)
        }
    }

    private static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            output.append(contentsOf: "u00".utf8)
            hex.withUTF8Buffer { digits in
                output.append(digits[Int(byte >> 4)])
                output.append(digits[Int(byte & 0xF)])
            }
        }
    }

    /// A finite number in its shortest round-trip form, without a trailing `.0`
    /// (`1`, `2.5`, `1e+20`, `1e-07`); `nil` for NaN and infinities, which JSON cannot hold.
    static func number(_ value: some BinaryFloatingPoint & LosslessStringConvertible) -> String? {
        guard value.isFinite else { return nil }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
