import JSON

/// Decodes the common shape of a `result` from its parsed tree without the `Decodable`
/// containers: every update ends with one, and the containers (existential boxes, coding
/// paths, generic metadata) cost more than the rest of reading it.
///
/// It accepts only what it understands completely: each field at most once, `id` a plain
/// integer, no `timeline`. Anything else returns `nil`, and the caller falls back to the
/// general decoder, which gives the same result or a precise error.
enum ResultFastPath {
    static func result(from node: JSONNode) -> ExtensionToSupervisor.Result? {
        guard case .object(let members) = node else { return nil }
        var seen: UInt8 = 0  // a bit per ``Field``: no set to allocate and hash into
        var id: RequestID?, outcome: UpdateOutcome?, snapshot: JSONNode?
        var reload: ReloadHint?, error: String?, preferredSize: Size?
        for (key, value) in members {
            // Unknown fields are ignored, as by the general decoder (repeated or not).
            guard let field = Field(key) else { continue }
            let bit: UInt8 = 1 << field.rawValue
            guard seen & bit == 0 else { return nil }
            seen |= bit
            switch field {
            case .type:
                guard case .string(let text) = value, text == "result" else { return nil }
            case .id:
                guard case .number(let text) = value, let number = UInt64(text), number <= RequestID.maximum else { return nil }
                id = RequestID(rawValue: number)
            case .result:
                guard case .string(let text) = value, let parsed = UpdateOutcome(rawValue: text) else { return nil }
                outcome = parsed
            case .snapshot: snapshot = value
            case .reload:
                if case .null = value { continue }
                guard let parsed = reloadHint(value) else { return nil }
                reload = parsed
            case .error:
                if case .null = value { continue }
                guard case .string(let text) = value else { return nil }
                error = text
            case .preferredSize:
                if case .null = value { continue }
                guard let parsed = size(value), parsed.isDisplayable else { return nil }
                preferredSize = parsed
            case .timeline, .largestMode: return nil
            }
        }
        guard seen & 1 << Field.type.rawValue != 0, let id, let outcome else { return nil }
        var decodedSnapshot: JSONValue?
        if outcome == .newData {
            guard let snapshot, let value = try? JSONValue(node: snapshot, codingPath: []) else { return nil }
            decodedSnapshot = value
        }
        return ExtensionToSupervisor.Result(id: id, result: outcome, snapshot: decodedSnapshot, reload: reload, error: error, preferredSize: preferredSize)
    }

    /// The fields of a `result`; `timeline` and `largestMode` send it to the general decoder.
    private enum Field: UInt8 {
        case type, id, result, snapshot, reload, error, preferredSize, timeline, largestMode

        init?(_ key: String) {
            switch key {
            case "type": self = .type
            case "id": self = .id
            case "result": self = .result
            case "snapshot": self = .snapshot
            case "reload": self = .reload
            case "error": self = .error
            case "preferredSize": self = .preferredSize
            case "timeline": self = .timeline
            case "largestMode": self = .largestMode
            default: return nil
            }
        }
    }

    /// `"atEnd"`, `"never"` or `{"after":"<RFC 3339 time>"}`.
    private static func reloadHint(_ node: JSONNode) -> ReloadHint? {
        switch node {
        case .string(let text) where text == "atEnd": return .atEnd
        case .string(let text) where text == "never": return .never
        case .object(let members):
            guard members.count == 1, members[0].key == "after", case .string(let text) = members[0].value,
                let date = RFC3339.date(from: text)
            else { return nil }
            return .after(date)
        default: return nil
        }
    }

    /// `{"width":W,"height":H}` with plain integers and nothing else.
    private static func size(_ node: JSONNode) -> Size? {
        guard case .object(let members) = node, members.count == 2 else { return nil }
        var width: Int?, height: Int?
        for (key, value) in members {
            guard case .number(let text) = value, let number = Int(text) else { return nil }
            switch key {
            case "width": width = number
            case "height": height = number
            default: return nil
            }
        }
        guard let width, let height else { return nil }
        return Size(width: width, height: height)
    }
}
