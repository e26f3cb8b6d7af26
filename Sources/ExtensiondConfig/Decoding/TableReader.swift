import Spelling

/// Reads the keys of one config table by schema: every key asked for is known, every other
/// key present is reported as unknown, with the list of known ones.
final class TableReader {
    /// Where the table itself was written.
    let origin: Origin
    private let entries: [String: ConfigNode]
    private let diagnostics: Diagnostics
    /// The schema's keys, in the order asked, for "unknown key" messages.
    private(set) var knownKeys: [String] = []

    /// A reader of `node`, or `nil` (with the error reported) when `node` is not a table.
    init?(_ node: ConfigNode, diagnostics: Diagnostics) {
        guard let entries = node.table else {
            diagnostics.report(node.mismatch("a table"))
            return nil
        }
        self.origin = node.origin
        self.entries = entries
        self.diagnostics = diagnostics
    }

    /// The node at `key`, which becomes known.
    func node(_ key: String) -> ConfigNode? {
        if !knownKeys.contains(key) { knownKeys.append(key) }
        return entries[key]
    }

    /// The value at `key`; `nil` when absent or invalid (then the error is reported).
    func read<Value>(_ key: String, _ kind: ValueKind<Value>) -> Value? {
        guard let node = node(key) else { return nil }
        do {
            return try kind.decode(node)
        } catch {
            diagnostics.report(error)
            return nil
        }
    }

    /// Overwrites `target` with the value at `key` when it is present and valid.
    func read<Value>(_ key: String, _ kind: ValueKind<Value>, into target: inout Value) {
        if let value = read(key, kind) { target = value }
    }

    /// Overwrites `target` with the value at `key` when it is present and valid.
    func read<Value>(_ key: String, _ kind: ValueKind<Value>, into target: inout Value?) {
        if let value = read(key, kind) { target = value }
    }

    /// Like ``read(_:_:)``, and a missing key is an error too.
    func require<Value>(_ key: String, _ kind: ValueKind<Value>) -> Value? {
        if entries[key] == nil {
            let missing = Origin(file: origin.file, location: origin.location, keyPath: origin.keyPath.appending(key))
            diagnostics.report(missing.error("missing required key \"\(key)\""))
        }
        return read(key, kind)
    }

    /// A reader of the sub-table at `key`, if present.
    func table(_ key: String) -> TableReader? {
        node(key).flatMap { TableReader($0, diagnostics: diagnostics) }
    }

    /// Reports a problem that involves `keys` (a constraint between them) at the first of them
    /// written in this very table, else at the first inherited from `[defaults]`, else at the table.
    func report(involving keys: [String], _ message: String) {
        let present = keys.compactMap { entries[$0] }
        if let own = present.first(where: { $0.origin.keyPath.components.dropLast() == origin.keyPath.components[...] }) {
            diagnostics.report(own.origin.error(message))
        } else if let inherited = present.first {
            diagnostics.report(inherited.origin.error("\(message) (applies to \(origin.keyPath))"))
        } else {
            diagnostics.report(origin.error(message))
        }
    }

    /// Reports every key present that the schema did not ask for.
    func rejectUnknownKeys() {
        for (key, node) in entries.sorted(by: { $0.key < $1.key }) where !knownKeys.contains(key) {
            let allowed = knownKeys.map { "\"\($0)\"" }.joined(separator: ", ")
            let suggestion = Spelling.closest(to: key, among: knownKeys).map { " (did you mean \"\($0)\"?)" } ?? ""
            diagnostics.report(node.origin.error("unknown key \"\(key)\"\(suggestion); allowed keys here: \(allowed)"))
        }
    }
}
