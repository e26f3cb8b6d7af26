/// Why a line received on an extension or host socket cannot be accepted.
///
/// Every case is a protocol violation: the daemon ends the connection (and kills an
/// extension with reason `protocol`); a client reports it and disconnects.
public enum ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A line exceeds `limit` bytes (not counting its newline).
    case oversized(limit: Int)
    /// A line is not one UTF-8 JSON object with a string `type`.
    case malformed(reason: String)
    /// The `type` is not a message that may be sent in this direction.
    case unknownType(String)
    /// A field of a known message is missing, has the wrong JSON type or a value outside
    /// its range. `field` is a path such as `maxSize.width` or `items[0].type`.
    case invalidField(messageType: String, field: String, problem: String)

    public var description: String {
        switch self {
        case .oversized(let limit):
            return "message longer than \(limit) bytes"
        case .malformed(let reason):
            return "malformed message: \(reason)"
        case .unknownType(let type):
            return "unknown message type \"\(type)\""
        case .invalidField(let messageType, let field, let problem):
            return "message \"\(messageType)\": field \"\(field)\": \(problem)"
        }
    }
}
