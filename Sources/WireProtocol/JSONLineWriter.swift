/// Writes one message line by hand, for the hot paths where going through `JSONEncoder`
/// would cost more than the work itself (cached `snapshot` answers).
struct JSONLineWriter {
    private var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginMessage(type: String) {
        bytes.append(contentsOf: #"{"type":"#.utf8)
        appendString(type)
    }

    mutating func field(_ name: StaticString, integer: UInt64) {
        appendName(name)
        bytes.append(contentsOf: String(integer).utf8)
    }

    mutating func field(_ name: StaticString, bool: Bool) {
        appendName(name)
        bytes.append(contentsOf: (bool ? "true" : "false").utf8)
    }

    mutating func field(_ name: StaticString, string: String) {
        appendName(name)
        appendString(string)
    }

    /// A field whose value is already-encoded JSON, copied verbatim.
    mutating func field(_ name: StaticString, json: [UInt8]) {
        appendName(name)
        bytes.append(contentsOf: json)
    }

    mutating func endMessage() -> [UInt8] {
        bytes.append(contentsOf: "}\n".utf8)
        return bytes
    }

    /// `,"name":` — names are ASCII identifiers and need no escaping.
    private mutating func appendName(_ name: StaticString) {
        bytes.append(UInt8(ascii: ","))
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\":".utf8)
    }

    /// A JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    private mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
