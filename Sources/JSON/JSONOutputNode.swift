/// A value being encoded by ``JSONTreeEncoder``. Objects and arrays are builders (classes),
/// because a container handed out by an encoder keeps adding to the value it belongs to.
package enum JSONOutputNode {
    /// A number, `true`, `false` or `null`, as written.
    case literal(String)
    case string(String)
    /// JSON that is already compact text, copied verbatim.
    case raw([UInt8])
    /// Free-form JSON, written by ``JSONValue/write(to:)``.
    case value(JSONValue)
    case array(JSONArrayBuilder)
    case object(JSONObjectBuilder)
    /// A value a `superEncoder` writes, possibly after its parent's container was filled.
    case deferred(JSONOutputSlot)

    /// Appends the value as compact JSON, object keys sorted by their UTF-8 bytes (the
    /// order of Foundation's `.sortedKeys`).
    func write(to output: inout [UInt8]) {
        switch self {
        case .literal(let text): output.append(contentsOf: text.utf8)
        case .string(let text): JSONText.appendString(text, to: &output)
        case .raw(let bytes): output.append(contentsOf: bytes)
        case .value(let value): value.write(to: &output)
        case .array(let array):
            output.append(UInt8(ascii: "["))
            for (index, element) in array.elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, key) in object.members.keys.sorted(by: JSONText.keyPrecedes).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONText.appendString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                object.members[key]!.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .deferred(let slot):
            (slot.node ?? .object(JSONObjectBuilder())).write(to: &output)
        }
    }
}

/// The members of an object being encoded; encoding a key again replaces its value.
package final class JSONObjectBuilder {
    var members: [String: JSONOutputNode] = [:]
}

/// The elements of an array being encoded.
package final class JSONArrayBuilder {
    var elements: [JSONOutputNode] = []
}

/// Where an encoder puts the one value it encodes.
package final class JSONOutputSlot {
    var node: JSONOutputNode?
}
