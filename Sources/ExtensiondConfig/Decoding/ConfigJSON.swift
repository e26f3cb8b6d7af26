/// A config value written out as compact JSON (object keys sorted), for values that the
/// daemon passes on as they are, such as a widget's `preview`.
enum ConfigJSON {
    /// Previews larger than this are refused: every `list` carries them.
    static let maxBytes = 64 << 10

    /// The JSON text of `node`; dates and non-finite floats have no JSON form and are errors
    /// at the value.
    static func text(of node: ConfigNode) throws(ConfigurationError) -> String {
        var text = ""
        try write(node, to: &text)
        guard text.utf8.count <= maxBytes else {
            throw node.origin.error("is \(text.utf8.count) bytes as JSON; at most \(maxBytes) are allowed")
        }
        return text
    }

    private static func write(_ node: ConfigNode, to text: inout String) throws(ConfigurationError) {
        switch node.value {
        case .string(let string): quote(string, to: &text)
        case .integer(let integer): text += String(integer)
        case .float(let float):
            guard float.isFinite else { throw node.origin.error("\(float) has no JSON form; use a finite number") }
            text += float == float.rounded() && abs(float) < 1e15 ? String(Int64(float)) : String(float)
        case .boolean(let boolean): text += boolean ? "true" : "false"
        case .temporal(let typeName): throw node.origin.error("\(typeName) has no JSON form; write it as a string")
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                try write(element, to: &text)
            }
            text += "]"
        case .table(let entries):
            text += "{"
            for (index, entry) in entries.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { text += "," }
                quote(entry.key, to: &text)
                text += ":"
                try write(entry.value, to: &text)
            }
            text += "}"
        }
    }

    /// RFC 8259 string: quotes, backslashes and control characters escaped.
    private static func quote(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\t": text += "\\t"
            case "\r": text += "\\r"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
