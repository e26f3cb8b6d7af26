/// The three containers of ``JSONTreeDecoder``: an object's members by key, an array's
/// elements in order, and a single value.
struct JSONKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(key: String, value: JSONNode)]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { lookup(key.stringValue) != nil }

    private func lookup(_ name: String) -> JSONNode? {
        members.first { $0.key == name }?.value
    }

    private func node(_ key: Key) throws -> JSONNode {
        guard let node = lookup(key.stringValue) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value associated with key \"\(key.stringValue)\"."))
        }
        return node
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try node(key) { return true }
        return false
    }

    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try JSONScalar.bool(node(key), codingPath + [key]) }
    func decode(_: String.Type, forKey key: Key) throws -> String { try JSONScalar.string(node(key), codingPath + [key]) }
    func decode(_: Double.Type, forKey key: Key) throws -> Double { try JSONScalar.floatingPoint(Double.self, node(key), codingPath + [key]) }
    func decode(_: Float.Type, forKey key: Key) throws -> Float { try JSONScalar.floatingPoint(Float.self, node(key), codingPath + [key]) }
    func decode(_: Int.Type, forKey key: Key) throws -> Int { try JSONScalar.integer(Int.self, node(key), codingPath + [key]) }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { try JSONScalar.integer(Int8.self, node(key), codingPath + [key]) }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { try JSONScalar.integer(Int16.self, node(key), codingPath + [key]) }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { try JSONScalar.integer(Int32.self, node(key), codingPath + [key]) }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { try JSONScalar.integer(Int64.self, node(key), codingPath + [key]) }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt { try JSONScalar.integer(UInt.self, node(key), codingPath + [key]) }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { try JSONScalar.integer(UInt8.self, node(key), codingPath + [key]) }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { try JSONScalar.integer(UInt16.self, node(key), codingPath + [key]) }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { try JSONScalar.integer(UInt32.self, node(key), codingPath + [key]) }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { try JSONScalar.integer(UInt64.self, node(key), codingPath + [key]) }

    func decode<Value: Decodable>(_: Value.Type, forKey key: Key) throws -> Value {
        try decodeValue(Value.self, from: node(key), at: codingPath + [key])
    }

    // An optional member is looked up once: the protocol's defaults look it up three times
    // (contains, decodeNil, decode), most of decoding an answer of optional fields. The
    // types here are those of the control protocol's answers.
    private func ifPresent<Value>(_ key: Key, _ convert: (JSONNode, @autoclosure () -> [any CodingKey]) throws -> Value) throws -> Value? {
        guard let node = lookup(key.stringValue) else { return nil }
        if case .null = node { return nil }
        return try convert(node, codingPath + [key])
    }

    func decodeIfPresent(_: Bool.Type, forKey key: Key) throws -> Bool? { try ifPresent(key, JSONScalar.bool) }
    func decodeIfPresent(_: String.Type, forKey key: Key) throws -> String? { try ifPresent(key, JSONScalar.string) }
    func decodeIfPresent(_: Int32.Type, forKey key: Key) throws -> Int32? { try ifPresent(key) { try JSONScalar.integer(Int32.self, $0, $1()) } }
    func decodeIfPresent(_: Int64.Type, forKey key: Key) throws -> Int64? { try ifPresent(key) { try JSONScalar.integer(Int64.self, $0, $1()) } }
    func decodeIfPresent(_: UInt64.Type, forKey key: Key) throws -> UInt64? { try ifPresent(key) { try JSONScalar.integer(UInt64.self, $0, $1()) } }
    func decodeIfPresent<Value: Decodable>(_: Value.Type, forKey key: Key) throws -> Value? {
        try ifPresent(key) { try decodeValue(Value.self, from: $0, at: $1()) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONTreeDecoder(node: node(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONTreeDecoder(node: node(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONTreeDecoder(node: lookup(JSONIndexKey.superKey.stringValue) ?? .null, codingPath: codingPath + [JSONIndexKey.superKey])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONTreeDecoder(node: lookup(key.stringValue) ?? .null, codingPath: codingPath + [key])
    }
}

struct JSONUnkeyedDecoding: UnkeyedDecodingContainer {
    let elements: [JSONNode]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONNode], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentPath: [any CodingKey] { codingPath + [JSONIndexKey(index: currentIndex)] }

    /// Converts the current element and moves past it; on error the index stays, as in Foundation.
    private mutating func next<Value>(_ type: Any.Type, _ convert: (JSONNode, [any CodingKey]) throws -> Value) throws -> Value {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        let value = try convert(elements[currentIndex], currentPath)
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, .init(codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        guard case .null = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_: Bool.Type) throws -> Bool { try next(Bool.self) { try JSONScalar.bool($0, $1) } }
    mutating func decode(_: String.Type) throws -> String { try next(String.self) { try JSONScalar.string($0, $1) } }
    mutating func decode(_: Double.Type) throws -> Double { try next(Double.self) { try JSONScalar.floatingPoint(Double.self, $0, $1) } }
    mutating func decode(_: Float.Type) throws -> Float { try next(Float.self) { try JSONScalar.floatingPoint(Float.self, $0, $1) } }
    mutating func decode(_: Int.Type) throws -> Int { try next(Int.self) { try JSONScalar.integer(Int.self, $0, $1) } }
    mutating func decode(_: Int8.Type) throws -> Int8 { try next(Int8.self) { try JSONScalar.integer(Int8.self, $0, $1) } }
    mutating func decode(_: Int16.Type) throws -> Int16 { try next(Int16.self) { try JSONScalar.integer(Int16.self, $0, $1) } }
    mutating func decode(_: Int32.Type) throws -> Int32 { try next(Int32.self) { try JSONScalar.integer(Int32.self, $0, $1) } }
    mutating func decode(_: Int64.Type) throws -> Int64 { try next(Int64.self) { try JSONScalar.integer(Int64.self, $0, $1) } }
    mutating func decode(_: UInt.Type) throws -> UInt { try next(UInt.self) { try JSONScalar.integer(UInt.self, $0, $1) } }
    mutating func decode(_: UInt8.Type) throws -> UInt8 { try next(UInt8.self) { try JSONScalar.integer(UInt8.self, $0, $1) } }
    mutating func decode(_: UInt16.Type) throws -> UInt16 { try next(UInt16.self) { try JSONScalar.integer(UInt16.self, $0, $1) } }
    mutating func decode(_: UInt32.Type) throws -> UInt32 { try next(UInt32.self) { try JSONScalar.integer(UInt32.self, $0, $1) } }
    mutating func decode(_: UInt64.Type) throws -> UInt64 { try next(UInt64.self) { try JSONScalar.integer(UInt64.self, $0, $1) } }

    mutating func decode<Value: Decodable>(_: Value.Type) throws -> Value {
        try next(Value.self) { try decodeValue(Value.self, from: $0, at: $1) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: Any].self) { try JSONTreeDecoder(node: $0, codingPath: $1).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([Any].self) { try JSONTreeDecoder(node: $0, codingPath: $1).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self) { JSONTreeDecoder(node: $0, codingPath: $1) }
    }
}

struct JSONSingleValueDecoding: SingleValueDecodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool {
        if case .null = node { return true }
        return false
    }

    func decode(_: Bool.Type) throws -> Bool { try JSONScalar.bool(node, codingPath) }
    func decode(_: String.Type) throws -> String { try JSONScalar.string(node, codingPath) }
    func decode(_: Double.Type) throws -> Double { try JSONScalar.floatingPoint(Double.self, node, codingPath) }
    func decode(_: Float.Type) throws -> Float { try JSONScalar.floatingPoint(Float.self, node, codingPath) }
    func decode(_: Int.Type) throws -> Int { try JSONScalar.integer(Int.self, node, codingPath) }
    func decode(_: Int8.Type) throws -> Int8 { try JSONScalar.integer(Int8.self, node, codingPath) }
    func decode(_: Int16.Type) throws -> Int16 { try JSONScalar.integer(Int16.self, node, codingPath) }
    func decode(_: Int32.Type) throws -> Int32 { try JSONScalar.integer(Int32.self, node, codingPath) }
    func decode(_: Int64.Type) throws -> Int64 { try JSONScalar.integer(Int64.self, node, codingPath) }
    func decode(_: UInt.Type) throws -> UInt { try JSONScalar.integer(UInt.self, node, codingPath) }
    func decode(_: UInt8.Type) throws -> UInt8 { try JSONScalar.integer(UInt8.self, node, codingPath) }
    func decode(_: UInt16.Type) throws -> UInt16 { try JSONScalar.integer(UInt16.self, node, codingPath) }
    func decode(_: UInt32.Type) throws -> UInt32 { try JSONScalar.integer(UInt32.self, node, codingPath) }
    func decode(_: UInt64.Type) throws -> UInt64 { try JSONScalar.integer(UInt64.self, node, codingPath) }

    func decode<Value: Decodable>(_: Value.Type) throws -> Value {
        try decodeValue(Value.self, from: node, at: codingPath)
    }
}
