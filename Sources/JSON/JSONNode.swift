/// A parsed JSON value, as ``JSONParser`` reads it and ``JSONTreeDecoder`` walks it.
///
/// Numbers keep their text so that every integer type decodes exactly, and objects keep
/// their members in order (a repeated key finds its first value, as Foundation's decoder did).
/// `Sendable` is declared: inferring it goes round the members' tuples back to `JSONNode`,
/// a cycle that fails a clean build whenever a file that asks comes first.
package enum JSONNode: Sendable {
    case null
    case bool(Bool)
    /// The number as written: valid JSON number syntax, not yet converted.
    case number(String)
    case string(String)
    case array([JSONNode])
    case object([(key: String, value: JSONNode)])

    /// The first value of `key` in an object.
    func member(_ key: String) -> JSONNode? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// What the value is, for error messages: "a string", "number", "null".
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}
