/// One future snapshot of a `result`'s `timeline`: the supervisor makes it current at
/// `date` without launching the extension. On the wire:
/// `{"date":"2026-11-22T08:00:00Z","snapshot":{...}}`.
public struct TimelineEntry: Hashable, Sendable {
    public var date: UnixTime
    public var snapshot: JSONValue

    /// Creates the value from its fields.
    public init(date: UnixTime, snapshot: JSONValue) {
        self.date = date
        self.snapshot = snapshot
    }

    /// Entries one `timeline` may hold.
    public static let maxCount = 256
}

extension TimelineEntry: Codable {
    private enum CodingKeys: String, CodingKey {
        case date, snapshot
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .date)
        guard let date = RFC3339.date(from: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .date, in: container, debugDescription: "expected an RFC 3339 time, got \"\(text)\"")
        }
        self.date = date
        snapshot = try container.decode(JSONValue.self, forKey: .snapshot)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(RFC3339.string(from: date), forKey: .date)
        try container.encode(snapshot, forKey: .snapshot)
    }
}

extension KeyedDecodingContainer {
    /// A `timeline`: at most ``TimelineEntry/maxCount`` entries, each dated after the one before.
    func decodeTimeline(forKey key: Key) throws -> [TimelineEntry] {
        var list = try nestedUnkeyedContainer(forKey: key)
        var entries: [TimelineEntry] = []
        while !list.isAtEnd {
            guard entries.count < TimelineEntry.maxCount else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: self, debugDescription: "more than \(TimelineEntry.maxCount) entries")
            }
            let entry = try list.decode(TimelineEntry.self)
            if let previous = entries.last, entry.date <= previous.date {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: self,
                    debugDescription: "entry \(entries.count) is not dated after entry \(entries.count - 1): dates must ascend")
            }
            entries.append(entry)
        }
        return entries
    }
}
