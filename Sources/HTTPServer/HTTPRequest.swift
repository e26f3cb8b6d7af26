/// One request as read: the head split into its parts, and the body.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public let method: String
    /// The path without the query, percent-encoding left as sent.
    public let path: String
    /// The query's `name=value` pairs, percent- and `+`-decoded; a name given twice keeps the last.
    public let query: [String: String]
    /// Header names in lower case, values without surrounding spaces.
    public let headers: [String: String]
    public let body: [UInt8]

    public init(method: String, path: String, query: [String: String], headers: [String: String], body: [UInt8]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// `a=1&b=x%20y` → ["a": "1", "b": "x y"]; a malformed escape is kept as sent.
    static func parseQuery(_ text: Substring) -> [String: String] {
        var query: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query[percentDecoded(parts[0])] = parts.count > 1 ? percentDecoded(parts[1]) : ""
        }
        return query
    }

    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let high = hexValue(utf8[utf8.startIndex]), let low = hexValue(utf8[utf8.index(after: utf8.startIndex)])
            {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
