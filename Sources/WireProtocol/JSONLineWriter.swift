/// Writes one message line by hand, for the hot paths where going through the general
/// encoder would cost more than the work itself (cached `snapshot` answers, `update`s).
struct JSONLineWriter {
    private var bytes: [UInt8] = []
    private var hasFields = false

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// `{"type":"…"`: a message whose type comes first.
    mutating func beginMessage(type: String) {
        bytes.append(contentsOf: #"{"type":"#.utf8)
        JSONText.appendString(type, to: &bytes)
        hasFields = true
    }

    /// `{`: a message whose fields (its `type` among them) are written in key order.
    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
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
        JSONText.appendString(string, to: &bytes)
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
        if hasFields { bytes.append(UInt8(ascii: ",")) }
        hasFields = true
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\":".utf8)
    }
}
