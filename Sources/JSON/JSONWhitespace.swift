/// JSON's insignificant whitespace (RFC 8259: space, tab, line feed, carriage return), one
/// definition for the parser and the host protocol's pull fast path. Inlinable: the fast
/// path reads from another module.
package enum JSONWhitespace {
    /// The first position at or after `position` in `bytes` that is not whitespace.
    @inlinable
    package static func end(in bytes: UnsafeBufferPointer<UInt8>, from position: Int) -> Int {
        var position = position
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return position
            }
        }
        return position
    }
}
