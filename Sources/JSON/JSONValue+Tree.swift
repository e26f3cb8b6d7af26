/// ``JSONValue`` straight from a parsed node and straight to bytes: the free-form JSON of
/// snapshots is the bulk of what the daemon decodes and encodes.
extension JSONValue: JSONNodeDecodable, JSONNodeEncodable {
    package init(node: JSONNode, codingPath: [any CodingKey]) throws {
        try self.init(node: node, path: { codingPath })
    }

    /// `path` is built only for an error: building it for every member cost an array each.
    private init(node: JSONNode, path: () -> [any CodingKey]) throws {
        switch node {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number: self = .number(try JSONScalar.floatingPoint(Double.self, node, path()))
        case .string(let value): self = .string(value)
        case .array(let elements):
            var values: [JSONValue] = []
            values.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                values.append(try JSONValue(node: element, path: { path() + [JSONIndexKey(index: index)] }))
            }
            self = .array(values)
        case .object(let members):
            var values: [String: JSONValue] = [:]
            values.reserveCapacity(members.count)
            for (key, member) in members where values[key] == nil {
                values[key] = try JSONValue(node: member, path: { path() + [JSONIndexKey(stringValue: key)!] })
            }
            self = .object(values)
        }
    }

    package var outputNode: JSONOutputNode { .value(self) }

    /// Appends the value as compact JSON with sorted keys; NaN and infinities as `null`.
    package func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): output.append(contentsOf: (JSONText.number(value) ?? "null").utf8)
        case .string(let value): JSONText.appendString(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Sorted with their values: no second lookup of each key.
            for (index, member) in members.sorted(by: { JSONText.keyPrecedes($0.key, $1.key) }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONText.appendString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}
