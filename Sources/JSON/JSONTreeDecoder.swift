/// A `Decoder` over a parsed ``JSONNode``: the standard library's `Decodable` protocols
/// without Foundation. Its errors are `DecodingError`s with the coding path of the value
/// at fault and the types Foundation's `JSONDecoder` named, so that callers can report the
/// field (see `WireCoding`).
struct JSONTreeDecoder: Decoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = node else {
            throw mismatch([String: Any].self, node, codingPath)
        }
        return KeyedDecodingContainer(JSONKeyedDecoding(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = node else { throw mismatch([Any].self, node, codingPath) }
        return JSONUnkeyedDecoding(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JSONSingleValueDecoding(node: node, codingPath: codingPath)
    }
}

/// Values that decode straight from a node, skipping the container protocols: the
/// protocol's free-form JSON, which would otherwise be decoded by trial and error.
package protocol JSONNodeDecodable {
    init(node: JSONNode, codingPath: [any CodingKey]) throws
}

/// Decodes a value of any type from `node`: scalars directly, the rest through its `init(from:)`.
package func decodeValue<Value: Decodable>(_: Value.Type, from node: JSONNode, at codingPath: [any CodingKey]) throws -> Value {
    if let direct = Value.self as? any JSONNodeDecodable.Type {
        return try direct.init(node: node, codingPath: codingPath) as! Value
    }
    return try Value(from: JSONTreeDecoder(node: node, codingPath: codingPath))
}

/// The error for a value of the wrong kind, `null` included (Foundation's `valueNotFound`).
func mismatch(_ expected: Any.Type, _ node: JSONNode, _ codingPath: [any CodingKey]) -> DecodingError {
    if case .null = node {
        return .valueNotFound(expected, .init(codingPath: codingPath, debugDescription: "Expected \(expected) value but found null instead."))
    }
    return .typeMismatch(expected, .init(codingPath: codingPath, debugDescription: "Expected to decode \(expected) but found \(node.kindDescription) instead."))
}

/// The scalar conversions every container shares.
enum JSONScalar {
    static func bool(_ node: JSONNode, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let value) = node else { throw mismatch(Bool.self, node, codingPath()) }
        return value
    }

    static func string(_ node: JSONNode, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let value) = node else { throw mismatch(String.self, node, codingPath()) }
        return value
    }

    /// A finite floating-point value; numbers beyond its range are errors, not infinities.
    static func floatingPoint<Value: BinaryFloatingPoint & LosslessStringConvertible>(
        _: Value.Type, _ node: JSONNode, _ codingPath: @autoclosure () -> [any CodingKey]
    ) throws -> Value {
        guard case .number(let text) = node else { throw mismatch(Value.self, node, codingPath()) }
        guard let value = Value(text), value.isFinite else { throw unrepresentable(text, Value.self, codingPath()) }
        return value
    }

    /// An integer, exact: digits are converted as such, and a number with a fraction or an
    /// exponent only when its value is a whole number in range (`1.0`, `1e2`).
    ///
    /// Specialized for each of the ten integer types of each container, so only the range
    /// check is generic: the parsing is ``wholeNumber(_:)``'s, once in the binary (every SDK
    /// widget carries this coder).
    static func integer<Value: FixedWidthInteger>(_: Value.Type, _ node: JSONNode, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Value {
        guard case .number(let text) = node else { throw mismatch(Value.self, node, codingPath()) }
        switch wholeNumber(text) {
        case .signed(let number): if let value = Value(exactly: number) { return value }
        case .unsigned(let number): if let value = Value(exactly: number) { return value }
        case nil: break
        }
        throw unrepresentable(text, Value.self, codingPath())
    }

    /// A whole number within 64 bits, signed when it fits.
    enum WholeNumber {
        case signed(Int64)
        case unsigned(UInt64)
    }

    /// `text` as a whole number: its digits, or a fraction or exponent whose value is whole
    /// (`nil` when it is not whole or lies beyond 64 bits).
    static func wholeNumber(_ text: String) -> WholeNumber? {
        if let number = Int64(text, radix: 10) { return .signed(number) }
        if let number = UInt64(text, radix: 10) { return .unsigned(number) }
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
            let number = Double(text)
        else { return nil }
        if let whole = Int64(exactly: number) { return .signed(whole) }
        return UInt64(exactly: number).map { .unsigned($0) }
    }

    private static func unrepresentable(_ text: String, _ type: Any.Type, _ codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: codingPath, debugDescription: "Number \(text) is not representable in \(type)."))
    }
}

/// A coding key for an array index or a `super` value.
struct JSONIndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init?(intValue: Int) { self.init(index: intValue) }

    static let superKey = JSONIndexKey(stringValue: "super")!
}
