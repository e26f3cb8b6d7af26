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

    /// The bytes written so far.
    @inlinable
    package var count: Int { bytes.count }

    /// `{"type":"…"`: a message whose type comes first.
    @inlinable
    package mutating func beginMessage(type: StaticString) {
        bytes.append(UInt8(ascii: "{"))
        appendName("type")
        append(quoted: type)
    }

    /// `{`: a message whose fields (its `type` among them) are written in key order.
    @inlinable
    package mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
    }

    /// `"name":{`: a nested object, whose fields follow until ``endObject()``.
    @inlinable
    package mutating func beginObject(_ name: StaticString) {
        appendName(name)
        bytes.append(UInt8(ascii: "{"))
        hasFields = false
    }

    /// `}`: the end of a nested object.
    @inlinable
    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        hasFields = true
    }

    @inlinable
    package mutating func field(_ name: StaticString, integer: UInt64) {
        appendName(name)
        JSONText.appendDecimal(integer, to: &bytes)
    }

    @inlinable
    package mutating func field(_ name: StaticString, integer: Int) {
        appendName(name)
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        JSONText.appendDecimal(UInt64(integer.magnitude), to: &bytes)
    }

    @inlinable
    package mutating func field(_ name: StaticString, bool: Bool) {
        appendName(name)
        append(bool ? "true" : "false")
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
    package mutating func nullField(_ name: StaticString) {
        appendName(name)
        append("null")
    }

    @inlinable
    package mutating func endMessage() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// `,"name":` — names are ASCII identifiers and need no escaping. Byte by byte: a
    /// `String`'s UTF-8 view would go through the generic `append(contentsOf:)`.
    @inlinable
    mutating func appendName(_ name: StaticString) {
        if hasFields { bytes.append(UInt8(ascii: ",")) }
        hasFields = true
        append(quoted: name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// An ASCII literal in quotes, which needs no escaping.
    @inlinable
    mutating func append(quoted text: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        append(text)
        bytes.append(UInt8(ascii: "\""))
    }

    @inlinable
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
