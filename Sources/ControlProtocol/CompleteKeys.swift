/// Answers that keep all their keys: every stored property is encoded under its own
/// name, `nil` as `null`, so a `--json` reader never has to guess whether a key is
/// missing or empty (docs/CLI.md). For types whose coding keys are their property names.
public protocol CompleteKeys: Encodable {}

extension CompleteKeys {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PropertyKey.self)
        for child in Mirror(reflecting: self).children {
            guard let label = child.label, let value = child.value as? any Encodable else { continue }
            try container.encode(value, forKey: PropertyKey(stringValue: label))
        }
    }
}

/// A stored property's name as a coding key.
private struct PropertyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue _: Int) { nil }
}
