/// An `Encoder` that builds a tree of ``JSONOutputNode``s: the standard library's
/// `Encodable` protocols without Foundation. ``JSONOutputNode/write(to:)`` then writes the
/// tree as compact JSON with sorted keys.
struct JSONTreeEncoder: Encoder {
    let slot: JSONOutputSlot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Asking twice gives the same object, so that a message's envelope and its fields
    /// (encoded by two functions) end up in one object.
    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: JSONObjectBuilder
        if case .object(let existing) = slot.node {
            object = existing
        } else {
            object = JSONObjectBuilder()
            slot.node = .object(object)
        }
        return KeyedEncodingContainer(JSONKeyedEncoding(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: JSONArrayBuilder
        if case .array(let existing) = slot.node {
            array = existing
        } else {
            array = JSONArrayBuilder()
            slot.node = .array(array)
        }
        return JSONUnkeyedEncoding(array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleValueEncoding(slot: slot, codingPath: codingPath)
    }
}

/// Values that become a node directly, skipping the container protocols: the scalars that
/// generic code encodes most, and JSON the protocol carries as is.
package protocol JSONNodeEncodable {
    var outputNode: JSONOutputNode { get }
}

/// The node for `value`: directly when it knows its node, else through its `encode(to:)`;
/// a value that encodes nothing is an empty object, as with Foundation.
func encodeValue(_ value: some Encodable, at codingPath: [any CodingKey]) throws -> JSONOutputNode {
    if let direct = value as? any JSONNodeEncodable { return direct.outputNode }
    let slot = JSONOutputSlot()
    try value.encode(to: JSONTreeEncoder(slot: slot, codingPath: codingPath))
    return slot.node ?? .object(JSONObjectBuilder())
}

/// A finite floating-point number's node; JSON has no NaN or infinity.
func numberNode(_ value: some BinaryFloatingPoint & LosslessStringConvertible, at codingPath: [any CodingKey]) throws -> JSONOutputNode {
    guard let text = JSONText.number(value) else {
        throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "Unable to encode \(value) directly in JSON."))
    }
    return .literal(text)
}

extension String: JSONNodeEncodable {
    package var outputNode: JSONOutputNode { .string(self) }
}

extension Bool: JSONNodeEncodable {
    package var outputNode: JSONOutputNode { .literal(self ? "true" : "false") }
}

extension Int: JSONNodeEncodable {
    package var outputNode: JSONOutputNode { .literal(String(self)) }
}

extension UInt64: JSONNodeEncodable {
    package var outputNode: JSONOutputNode { .literal(String(self)) }
}
