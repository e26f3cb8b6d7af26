import JSON

/// One JSON value that has already been encoded, so that messages can carry it without
/// re-encoding: the daemon keeps each snapshot in this form and serves every cached pull
/// from the same bytes.
public struct EncodedJSON: Hashable, Sendable {
    /// The compact UTF-8 JSON text, without a trailing newline.
    public let bytes: [UInt8]

    /// Wraps bytes the caller knows to hold exactly one JSON value with no raw newline
    /// (for example bytes produced by ``JSONValue/encoded()``). Nothing is checked.
    public init(trustedBytes bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses the bytes back into a tree.
    public func decoded() throws(ProtocolError) -> JSONValue {
        do {
            return try JSONCoding.decode(JSONValue.self, from: bytes)
        } catch {
            throw .malformed(reason: "embedded JSON is not valid")
        }
    }
}

/// Stored as the JSON it holds (for persisting snapshots).
extension EncodedJSON: Codable {
    public init(from decoder: any Decoder) throws {
        self = try JSONValue(from: decoder).encoded()
    }

    public func encode(to encoder: any Encoder) throws {
        try decoded().encode(to: encoder)
    }
}

/// With the project's own coder the bytes are copied, not re-encoded.
extension EncodedJSON: JSONNodeDecodable, JSONNodeEncodable {
    package init(node: JSONNode, codingPath: [any CodingKey]) throws {
        self = try JSONValue(node: node, codingPath: codingPath).encoded()
    }

    package var outputNode: JSONOutputNode { .raw(bytes) }
}

extension JSONValue {
    /// This value as compact JSON bytes, ready to be embedded with ``EncodedJSON``.
    public func encoded() -> EncodedJSON {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return EncodedJSON(trustedBytes: bytes)
    }
}
