/// The project's JSON coder: `Codable` values to compact JSON (sorted keys, slashes not
/// escaped) and back, on the standard library alone.
///
/// This module owns JSON itself: the bounded parser (``JSONLimits``), the tree it builds,
/// the encoder and decoder over it, free-form values (``JSONValue``), how scalars are
/// written, and the in-place reader of the protocols' fast paths (`JSONScanner`). It is linked by the daemon, every client and every SDK widget, so it must not
/// know any protocol's messages (they are WireProtocol's, HostProtocol's and
/// ControlProtocol's), do I/O or use Foundation.
///
/// Decoding errors are `DecodingError`s: a syntax error is `dataCorrupted` with an empty
/// coding path and a ``JSONSyntaxError`` (saying where) as its underlying error; errors of
/// the value name the path of the field at fault.
public enum JSONCoding {
    /// `value` as compact JSON. Throws `EncodingError.invalidValue` for a NaN or infinite
    /// number, which JSON cannot hold.
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        var output: [UInt8] = []
        try encodeValue(value, at: []).write(to: &output)
        return output
    }

    /// The value of type `Value` that `bytes` hold.
    public static func decode<Value: Decodable>(
        _: Value.Type, from bytes: some Collection<UInt8>, limits: JSONLimits = .standard
    ) throws -> Value {
        try decodeValue(Value.self, from: parse(bytes, limits: limits), at: [])
    }

    /// The tree `bytes` hold; a syntax error as `DecodingError.dataCorrupted`.
    package static func parse(_ bytes: some Collection<UInt8>, limits: JSONLimits = .standard) throws(DecodingError) -> JSONNode {
        let parsed =
            bytes.withContiguousStorageIfAvailable { buffer in
                Result { () throws(JSONSyntaxError) in try JSONParser.parse(buffer, limits: limits) }
            }
            ?? Array(bytes).withUnsafeBufferPointer { buffer in
                Result { () throws(JSONSyntaxError) in try JSONParser.parse(buffer, limits: limits) }
            }
        switch parsed {
        case .success(let node): return node
        case .failure(let error):
            throw .dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON: \(error).", underlyingError: error))
        }
    }
}
