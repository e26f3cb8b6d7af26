import JSON

/// Writes one message line by hand, for the hot paths where going through the general
/// encoder would cost more than the work itself (cached `snapshot` answers, `update`s).
/// Inlinable: HostProtocol writes cached pull answers with it from another module.
package struct JSONLineWriter {
    @usableFromInline var bytes: [UInt8] = []
    @usableFromInline var hasFields = false

    @inlinable
    package init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// `{"type":"…"`: a message whose type comes first.
    @inlinable
    package mutating func beginMessage(type: String) {
        bytes.append(contentsOf: #"{"type":"#.utf8)
        JSONText.appendString(type, to: &bytes)
        hasFields = true
    }

    /// `{`: a message whose fields (its `type` among them) are written in key order.
    @inlinable
    package mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
    }

    @inlinable
    package mutating func field(_ name: StaticString, integer: UInt64) {
        appendName(name)
        bytes.append(contentsOf: String(integer).utf8)
    }

    @inlinable
    package mutating func field(_ name: StaticString, bool: Bool) {
        appendName(name)
        bytes.append(contentsOf: (bool ? "true" : "false").utf8)
    }

    @inlinable
    package mutating func field(_ name: StaticString, string: String) {
        appendName(name)
        JSONText.appendString(string, to: &bytes)
    }

    /// A field whose value is already-encoded JSON, copied verbatim.
    @inlinable
    package mutating func field(_ name: StaticString, json: [UInt8]) {
        appendName(name)
        bytes.append(contentsOf: json)
    }

    @inlinable
    package mutating func endMessage() -> [UInt8] {
        bytes.append(contentsOf: "}\n".utf8)
        return bytes
    }

    /// `,"name":` — names are ASCII identifiers and need no escaping.
    @inlinable
    mutating func appendName(_ name: StaticString) {
        if hasFields { bytes.append(UInt8(ascii: ",")) }
        hasFields = true
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\":".utf8)
    }
}
