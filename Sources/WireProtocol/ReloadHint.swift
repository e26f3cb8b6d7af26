/// When a widget wants its next scheduled refresh, returned with `newData`.
///
/// On the wire: `{"after": "<RFC 3339 time>"}`, `"atEnd"` or `"never"`.
public enum ReloadHint: Hashable, Sendable {
    /// Not before this time.
    case after(UnixTime)
    /// When the schedule's current interval ends (the default policy).
    case atEnd
    /// Only on pulls and manual refreshes, never on schedule.
    case never
}

extension ReloadHint: Codable {
    private enum CodingKeys: String, CodingKey {
        case after
    }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: CodingKeys.self) {
            let text = try keyed.decode(String.self, forKey: .after)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .after, in: keyed, debugDescription: "expected an RFC 3339 time, got \"\(text)\"")
            }
            self = .after(date)
            return
        }
        let single = try decoder.singleValueContainer()
        switch try? single.decode(String.self) {
        case "atEnd": self = .atEnd
        case "never": self = .never
        default:
            throw DecodingError.dataCorruptedError(
                in: single, debugDescription: "expected {\"after\": time}, \"atEnd\" or \"never\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .after(let date):
            var keyed = encoder.container(keyedBy: CodingKeys.self)
            try keyed.encode(RFC3339.string(from: date), forKey: .after)
        case .atEnd:
            var single = encoder.singleValueContainer()
            try single.encode("atEnd")
        case .never:
            var single = encoder.singleValueContainer()
            try single.encode("never")
        }
    }
}
