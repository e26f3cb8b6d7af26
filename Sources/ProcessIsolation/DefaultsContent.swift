import WireProtocol

/// The key-value content of one group's shared defaults, with the size of its encoding
/// kept as it changes: a `set` checks the store's bound without encoding the whole store.
struct DefaultsContent {
    private(set) var values: [String: JSONValue] = [:]
    /// The bytes of the members, each counted with one comma.
    private var memberBytes = 0

    init() {}

    init(_ values: [String: JSONValue]) {
        for (key, value) in values { self[key] = value }
    }

    /// The compact JSON object, as saved.
    var encoded: [UInt8] { JSONValue.object(values).encoded().bytes }

    /// The bytes of ``encoded``: `{`, `}`, and the members with a comma between each two.
    var encodedBytes: Int { Self.encodedBytes(memberBytes: memberBytes) }

    /// The bytes of ``encoded`` after storing `value` under `key` (`nil`: removing it).
    func encodedBytes(setting key: String, to value: JSONValue?) -> Int {
        Self.encodedBytes(memberBytes: memberBytes(setting: key, to: value))
    }

    subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            memberBytes = memberBytes(setting: key, to: newValue)
            values[key] = newValue
        }
    }

    private func memberBytes(setting key: String, to value: JSONValue?) -> Int {
        memberBytes - (values[key].map { Self.memberBytes(key, $0) } ?? 0) + (value.map { Self.memberBytes(key, $0) } ?? 0)
    }

    /// One comma fewer than members; none for no member.
    private static func encodedBytes(memberBytes: Int) -> Int {
        memberBytes == 0 ? 2 : memberBytes + 1
    }

    /// A member's bytes with the comma that separates it from another.
    private static func memberBytes(_ key: String, _ value: JSONValue) -> Int {
        JSONValue.string(key).encoded().bytes.count + 1 + value.encoded().bytes.count + 1
    }
}
