/// The bounds a snapshot that is an Adaptive Card must keep (docs/PROTOCOL.md §6), checked
/// by the daemon before any host sees it: a host's renderer then never meets a card deeper,
/// larger or of another shape than these.
public enum CardShape {
    /// Elements, actions and inlines nested in one another.
    public static let maxDepth = 32
    /// JSON objects in one card.
    public static let maxObjects = 2000
    /// Bytes of one string (a text, a URL); a `data:` image URI may be longer.
    public static let maxStringBytes = 16 * 1024
    /// Bytes of one `data:` image URI.
    public static let maxDataURIBytes = 256 * 1024

    /// Whether `snapshot` claims to be a card (`"type": "AdaptiveCard"`): only those are checked.
    public static func isCard(_ snapshot: JSONValue) -> Bool {
        if case .object(let fields) = snapshot, case .string("AdaptiveCard")? = fields["type"] { return true }
        return false
    }

    /// What is wrong with the card, or `nil` when it keeps every bound.
    public static func problem(with card: JSONValue) -> String? {
        guard case .object(let fields) = card else { return "a card is a JSON object" }
        if let version = fields["version"], case .string = version {
        } else if fields["version"] != nil {
            return "version is not a string"
        }
        for list in ["body", "actions"] {
            if let value = fields[list], case .array = value {} else if fields[list] != nil { return "\(list) is not an array" }
        }
        var objects = 0
        return check(card, path: "card", depth: 0, objects: &objects)
    }

    private static let elementLists: Set<String> = ["body", "items", "columns", "actions", "images", "inlines", "facts"]

    private static func check(_ value: JSONValue, path: String, depth: Int, objects: inout Int) -> String? {
        guard depth <= maxDepth else { return "\(path): nested deeper than \(maxDepth)" }
        switch value {
        case .string(let text):
            let limit = text.hasPrefix("data:") ? maxDataURIBytes : maxStringBytes
            return text.utf8.count > limit ? "\(path): a string of \(text.utf8.count) bytes, more than \(limit)" : nil
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let problem = check(item, path: "\(path)[\(index)]", depth: depth + 1, objects: &objects) { return problem }
            }
        case .object(let fields):
            objects += 1
            guard objects <= maxObjects else { return "\(path): more than \(maxObjects) objects" }
            for key in fields.keys.sorted() {
                let child = fields[key]!
                if elementLists.contains(key), case .array(let items) = child,
                    let index = items.firstIndex(where: { !isElement($0, in: key) })
                {
                    return "\(path).\(key)[\(index)]: an element is an object with a string type"
                }
                if let problem = check(child, path: "\(path).\(key)", depth: depth + 1, objects: &objects) { return problem }
            }
        default:
            break
        }
        return nil
    }

    /// Facts have no type, and inlines may be plain strings.
    private static func isElement(_ value: JSONValue, in list: String) -> Bool {
        switch (list, value) {
        case ("inlines", .string), ("facts", .object): return true
        case (_, .object(let fields)): if case .string? = fields["type"] { return true } else { return list == "columns" }
        default: return false
        }
    }
}
