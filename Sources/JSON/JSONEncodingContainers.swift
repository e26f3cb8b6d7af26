/// The three containers of ``JSONTreeEncoder``: an object's members by key, an array's
/// elements in order, and a single value.
struct JSONKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: JSONObjectBuilder
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) { object.members[key.stringValue] = .literal("null") }

    mutating func encode(_ value: Bool, forKey key: Key) { object.members[key.stringValue] = value.outputNode }
    mutating func encode(_ value: String, forKey key: Key) { object.members[key.stringValue] = .string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { object.members[key.stringValue] = try numberNode(value, at: codingPath + [key]) }
    mutating func encode(_ value: Float, forKey key: Key) throws { object.members[key.stringValue] = try numberNode(value, at: codingPath + [key]) }
    mutating func encode(_ value: Int, forKey key: Key) { object.members[key.stringValue] = .literal(String(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) { object.members[key.stringValue] = .literal(String(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) { object.members[key.stringValue] = .literal(String(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) { object.members[key.stringValue] = .literal(String(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) { object.members[key.stringValue] = .literal(String(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) { object.members[key.stringValue] = .literal(String(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) { object.members[key.stringValue] = .literal(String(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) { object.members[key.stringValue] = .literal(String(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) { object.members[key.stringValue] = .literal(String(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) { object.members[key.stringValue] = .literal(String(value)) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        object.members[key.stringValue] = try encodeValue(value, at: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy _: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBuilder()
        object.members[key.stringValue] = .object(nested)
        return KeyedEncodingContainer(JSONKeyedEncoding<NestedKey>(object: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBuilder()
        object.members[key.stringValue] = .array(nested)
        return JSONUnkeyedEncoding(array: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: JSONIndexKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key)
    }

    private func superEncoder(named key: any CodingKey) -> any Encoder {
        let slot = JSONOutputSlot()
        object.members[key.stringValue] = .deferred(slot)
        return JSONTreeEncoder(slot: slot, codingPath: codingPath + [key])
    }
}

struct JSONUnkeyedEncoding: UnkeyedEncodingContainer {
    let array: JSONArrayBuilder
    let codingPath: [any CodingKey]

    var count: Int { array.elements.count }

    private var nextPath: [any CodingKey] { codingPath + [JSONIndexKey(index: count)] }

    mutating func encodeNil() { array.elements.append(.literal("null")) }

    mutating func encode(_ value: Bool) { array.elements.append(value.outputNode) }
    mutating func encode(_ value: String) { array.elements.append(.string(value)) }
    mutating func encode(_ value: Double) throws { array.elements.append(try numberNode(value, at: nextPath)) }
    mutating func encode(_ value: Float) throws { array.elements.append(try numberNode(value, at: nextPath)) }
    mutating func encode(_ value: Int) { array.elements.append(.literal(String(value))) }
    mutating func encode(_ value: Int8) { array.elements.append(.literal(String(value))) }
    mutating func encode(_ value: Int16) { array.elements.append(.literal(String(value))) }
    mutating func encode(_ value: Int32) { array.elements.append(.literal(String(value))) }
    mutating func encode(_ value: Int64) { array.elements.append(.literal(String(value))) }
    mutating func encode(_ value: UInt) { array.elements.append(.literal(String(value))) }
    mutating func encode(_ value: UInt8) { array.elements.append(.literal(String(value))) }
    mutating func encode(_ value: UInt16) { array.elements.append(.literal(String(value))) }
    mutating func encode(_ value: UInt32) { array.elements.append(.literal(String(value))) }
    mutating func encode(_ value: UInt64) { array.elements.append(.literal(String(value))) }

    mutating func encode(_ value: some Encodable) throws {
        array.elements.append(try encodeValue(value, at: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy _: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBuilder()
        let path = nextPath
        array.elements.append(.object(nested))
        return KeyedEncodingContainer(JSONKeyedEncoding<NestedKey>(object: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBuilder()
        let path = nextPath
        array.elements.append(.array(nested))
        return JSONUnkeyedEncoding(array: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let slot = JSONOutputSlot()
        let path = nextPath
        array.elements.append(.deferred(slot))
        return JSONTreeEncoder(slot: slot, codingPath: path)
    }
}

struct JSONSingleValueEncoding: SingleValueEncodingContainer {
    let slot: JSONOutputSlot
    let codingPath: [any CodingKey]

    mutating func encodeNil() { slot.node = .literal("null") }

    mutating func encode(_ value: Bool) { slot.node = value.outputNode }
    mutating func encode(_ value: String) { slot.node = .string(value) }
    mutating func encode(_ value: Double) throws { slot.node = try numberNode(value, at: codingPath) }
    mutating func encode(_ value: Float) throws { slot.node = try numberNode(value, at: codingPath) }
    mutating func encode(_ value: Int) { slot.node = .literal(String(value)) }
    mutating func encode(_ value: Int8) { slot.node = .literal(String(value)) }
    mutating func encode(_ value: Int16) { slot.node = .literal(String(value)) }
    mutating func encode(_ value: Int32) { slot.node = .literal(String(value)) }
    mutating func encode(_ value: Int64) { slot.node = .literal(String(value)) }
    mutating func encode(_ value: UInt) { slot.node = .literal(String(value)) }
    mutating func encode(_ value: UInt8) { slot.node = .literal(String(value)) }
    mutating func encode(_ value: UInt16) { slot.node = .literal(String(value)) }
    mutating func encode(_ value: UInt32) { slot.node = .literal(String(value)) }
    mutating func encode(_ value: UInt64) { slot.node = .literal(String(value)) }

    mutating func encode(_ value: some Encodable) throws {
        slot.node = try encodeValue(value, at: codingPath)
    }
}
