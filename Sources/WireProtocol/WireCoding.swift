import JSON

/// The shared machinery of the four message groups: one line of JSON in, one message out
/// (with errors that name the message type and field), and back.
package enum WireCoding {
    /// The key every message has.
    enum TypeKey: String, CodingKey {
        case type
    }

    /// Compact JSON for `value`. Only the protocol's own types are encoded here, and none
    /// of them can fail to encode: they hold strings, integers, booleans and `JSONValue`s,
    /// which encode non-finite numbers as `null`.
    static func encodeBytes(_ value: some Encodable) -> [UInt8] {
        do {
            return try JSONCoding.encode(value)
        } catch {
            preconditionFailure("protocol value failed to encode: \(error)")
        }
    }

    /// `value` as one line: compact JSON and a newline.
    package static func encodeLine(_ value: some Encodable) -> [UInt8] {
        var bytes = encodeBytes(value)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Decodes one line (without its newline) as a `Message`.
    package static func decodeLine<Message: WireMessageGroup>(
        _ line: some Collection<UInt8>, as _: Message.Type
    ) throws(ProtocolError) -> Message {
        try decodeMessage(parseLine(line), as: Message.self)
    }

    /// The tree of one line, for decoders that look at it before the general one.
    static func parseLine(_ line: some Collection<UInt8>) throws(ProtocolError) -> JSONNode {
        do {
            return try JSONCoding.parse(line)
        } catch {
            throw malformed(error)
        }
    }

    /// Decodes a parsed line as a `Message`.
    static func decodeMessage<Message: WireMessageGroup>(_ node: JSONNode, as _: Message.Type) throws(ProtocolError) -> Message {
        do {
            return try decodeValue(Envelope<Message>.self, from: node, at: []).message
        } catch let error as ProtocolError {
            throw error
        } catch let error as DecodingError {
            throw malformed(error)
        } catch {
            throw .malformed(reason: "\(error)")
        }
    }

    /// Decodes the payload of a message whose type is already known, naming the field on error.
    /// Specialized for every payload type, so the error mapping is ``payloadError(_:messageType:)``'s.
    package static func decodePayload<Payload: Decodable>(
        _: Payload.Type, of messageType: String, from decoder: any Decoder
    ) throws(ProtocolError) -> Payload {
        do {
            return try Payload(from: decoder)
        } catch {
            throw payloadError(error, messageType: messageType)
        }
    }

    @inline(never)
    private static func payloadError(_ error: any Error, messageType: String) -> ProtocolError {
        switch error {
        case let error as ProtocolError: error
        case let error as DecodingError: fieldError(error, messageType: messageType)
        default: .invalidField(messageType: messageType, field: "", problem: "\(error)")
        }
    }

    private static func malformed(_ error: DecodingError) -> ProtocolError {
        switch error {
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            return .malformed(reason: "not a JSON object")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return .malformed(reason: "not valid UTF-8 JSON")
        case .keyNotFound(let key, _) where key.stringValue == TypeKey.type.stringValue:
            return .malformed(reason: "missing field \"type\"")
        default:
            return .malformed(reason: "field \"type\" must be a string")
        }
    }

    private static func fieldError(_ error: DecodingError, messageType: String) -> ProtocolError {
        switch error {
        case .keyNotFound(let key, let context):
            return .invalidField(messageType: messageType, field: fieldPath(context.codingPath + [key]), problem: "missing")
        case .typeMismatch(let expected, let context):
            return .invalidField(
                messageType: messageType, field: fieldPath(context.codingPath), problem: "expected \(describe(expected))")
        case .valueNotFound(let expected, let context):
            return .invalidField(
                messageType: messageType, field: fieldPath(context.codingPath),
                problem: "expected \(describe(expected)), got null")
        case .dataCorrupted(let context):
            return .invalidField(
                messageType: messageType, field: fieldPath(context.codingPath), problem: context.debugDescription)
        @unknown default:
            return .invalidField(messageType: messageType, field: "", problem: "\(error)")
        }
    }

    /// `maxSize.width`, `items[0].type`.
    private static func fieldPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }

    private static func describe(_ type: Any.Type) -> String {
        if type == String.self { return "a string" }
        if type == Bool.self { return "a boolean" }
        if type == Int.self || type == UInt64.self { return "an integer" }
        if type == Double.self { return "a number" }
        if type == [Any].self { return "an array" }
        if type == [String: Any].self { return "an object" }
        return "a value of type \(type)"
    }
}

/// One of the four message groups (`ExtensionToSupervisor`, `SupervisorToExtension`,
/// `HostToSupervisor`, `SupervisorToHost`): a closed set of messages keyed by `type`.
public protocol WireMessageGroup: Hashable, Sendable {
    /// The message's wire `type`, such as `"update"`.
    var type: String { get }
    /// Decodes the fields of the message named `type` from the object `decoder` reads;
    /// throws ``ProtocolError/unknownType(_:)`` for a type outside the group.
    init(type: String, decoder: any Decoder) throws(ProtocolError)
    /// Encodes the message's fields (all but `type`) into the object `encoder` writes.
    func encodeFields(to encoder: any Encoder) throws
    /// The message as one line of compact JSON, newline included.
    func encodedLine() -> [UInt8]
    /// Decodes one line (without its newline); throws a ``ProtocolError`` naming the
    /// message type and field when it is not a valid message of this group.
    static func decode(line: some Collection<UInt8>) throws(ProtocolError) -> Self
}

extension WireMessageGroup {
    /// Decodes one line (without its newline) with the general decoder.
    public static func decode(line: some Collection<UInt8>) throws(ProtocolError) -> Self {
        try WireCoding.decodeLine(line, as: Self.self)
    }

    /// The message as one line of compact JSON, newline included.
    public func encodedLine() -> [UInt8] {
        WireCoding.encodeLine(Enveloped(message: self))
    }
}

/// Reads `type`, then lets the group decode the rest of the same object.
private struct Envelope<Message: WireMessageGroup>: Decodable {
    let message: Message

    init(from decoder: any Decoder) throws {
        let type = try decoder.container(keyedBy: WireCoding.TypeKey.self).decode(String.self, forKey: .type)
        message = try Message(type: type, decoder: decoder)
    }
}

/// Writes `type` and the message's fields into one object.
package struct Enveloped<Message: WireMessageGroup>: Encodable {
    let message: Message

    package init(message: Message) {
        self.message = message
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: WireCoding.TypeKey.self)
        try container.encode(message.type, forKey: .type)
        try message.encodeFields(to: encoder)
    }
}
