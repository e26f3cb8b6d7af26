/// One item given to or returned by an action or share extension: a file path or a
/// JSON value, tagged with a type identifier such as `public.image`.
///
/// On the wire: `{"type": "public.image", "path": "/tmp/a.png"}` or
/// `{"type": "public.text", "value": "hello"}`.
public struct Item: Codable, Hashable, Sendable {
    /// What an item carries.
    public enum Content: Hashable, Sendable {
        case path(String)
        case value(JSONValue)
    }

    /// The type identifier, matched against an extension's `activation` rule.
    public var type: String
    public var content: Content

    /// Creates the value from its fields.
    public init(type: String, content: Content) {
        self.type = type
        self.content = content
    }

    /// An item naming a file.
    public init(type: String, path: String) {
        self.init(type: type, content: .path(path))
    }

    /// An item carrying a value inline.
    public init(type: String, value: JSONValue) {
        self.init(type: type, content: .value(value))
    }

    private enum CodingKeys: String, CodingKey {
        case type, path, value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        if let path = try container.decodeIfPresent(String.self, forKey: .path) {
            content = .path(path)
        } else if container.contains(.value) {
            content = .value(try container.decode(JSONValue.self, forKey: .value))
        } else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "needs \"path\" or \"value\""))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        switch content {
        case .path(let path): try container.encode(path, forKey: .path)
        case .value(let value): try container.encode(value, forKey: .value)
        }
    }
}
