/// The tables of a document while it is parsed, and TOML's rules about defining them:
/// a key is defined once; a table is defined by one header, or by dotted keys, never both;
/// inline tables and arrays are complete as written; `[[name]]` appends only to an array of
/// tables. Tables live in an array and refer to each other by index, so that a header deep in
/// the tree is reached without copying the tables above it.
struct TableTree {
    /// One component of a dotted key or header, and where it is written.
    struct KeyPart {
        var name: String
        var position: TOMLPosition
    }

    /// How a table came to exist, which decides how it may still be extended.
    private enum Origin {
        /// Named on the way to another table (`a` in `[a.b]`): a header may still define it.
        case implied
        /// Defined by a header.
        case header
        /// Created by a dotted key (`a.b = 1` creates `a`): only dotted keys may add keys to it.
        case dotted
    }

    private enum Content {
        /// A finished value: a scalar, an array written as a value, an inline table.
        case value(TOMLNode)
        case table(Int)
        /// `[[name]]` tables, with where the array was first written.
        case tableArray([Int], TOMLPosition)
    }

    private struct Slot {
        var key: String
        var keyPosition: TOMLPosition
        var content: Content
    }

    private struct Table {
        var origin: Origin
        var depth: Int
        /// Where its key is written (for an element of an array of tables, in its own header).
        var position: TOMLPosition
        var slots: [Slot] = []
        var indices: [String: Int] = [:]
    }

    private var tables: [Table]
    private let maximumDepth: Int

    /// The index of the root table.
    let root = 0

    /// A tree whose root sits `rootDepth` levels deep (an inline table's own depth).
    init(rootDepth: Int, maximumDepth: Int) {
        tables = [Table(origin: .header, depth: rootDepth, position: TOMLPosition(line: 1, column: 1))]
        self.maximumDepth = maximumDepth
    }

    func depth(of table: Int) -> Int { tables[table].depth }

    /// The table that the keys after the header `[path]` (or `[[path]]` when `isArray`) go into.
    mutating func openSection(_ path: [KeyPart], isArray: Bool) throws(TOMLError) -> Int {
        var table = root
        for part in path.dropLast() {
            table = try child(part, of: table, creating: .implied)
        }
        guard let last = path.last else { return root }
        guard let index = tables[table].indices[last.name] else {
            let created = try newTable(.header, below: table, at: last)
            let content: Content = isArray ? .tableArray([created], last.position) : .table(created)
            insert(Slot(key: last.name, keyPosition: last.position, content: content), into: table)
            return created
        }
        switch tables[table].slots[index].content {
        case .tableArray(var elements, let position) where isArray:
            let element = try newTable(.header, below: table, at: last)
            // Released first, so that the append does not copy the array.
            tables[table].slots[index].content = .tableArray([], position)
            elements.append(element)
            tables[table].slots[index].content = .tableArray(elements, position)
            return element
        case .table(let existing) where !isArray && tables[existing].origin == .implied:
            tables[existing].origin = .header
            tables[existing].position = last.position
            tables[table].slots[index].keyPosition = last.position
            return existing
        case _ where isArray:
            throw redefinition(last, at: table, "cannot be appended to with [[...]]: it is not an array of tables")
        default:
            throw redefinition(last, at: table, "cannot be defined again by a table header")
        }
    }

    /// Defines `path = node` below `table`, creating the tables a dotted key names.
    mutating func define(_ path: [KeyPart], as node: TOMLNode, in table: Int) throws(TOMLError) {
        var parent = table
        for part in path.dropLast() {
            parent = try child(part, of: parent, creating: .dotted)
        }
        guard let last = path.last else { return }
        guard tables[parent].indices[last.name] == nil else {
            throw redefinition(last, at: parent, "is already defined")
        }
        insert(Slot(key: last.name, keyPosition: last.position, content: .value(node)), into: parent)
    }

    /// The value tree; each table's position is where its key is written.
    func finish() -> TOMLTable { table(root) }

    // MARK: - Building

    /// The table `part` below `parent`, created as `origin` if missing. A header passes through
    /// any table (the last of an array of tables); a dotted key only through dotted tables.
    private mutating func child(_ part: KeyPart, of parent: Int, creating origin: Origin) throws(TOMLError) -> Int {
        guard let index = tables[parent].indices[part.name] else {
            let created = try newTable(origin, below: parent, at: part)
            insert(Slot(key: part.name, keyPosition: part.position, content: .table(created)), into: parent)
            return created
        }
        switch tables[parent].slots[index].content {
        case .table(let existing) where origin == .implied || tables[existing].origin == .dotted:
            return existing
        case .tableArray(let elements, _) where origin == .implied:
            return elements[elements.count - 1]
        case .value:
            throw redefinition(part, at: parent, "is already defined as a value, not a table")
        case .table, .tableArray:
            throw redefinition(part, at: parent, "is already defined by a table header; dotted keys cannot add to it")
        }
    }

    private mutating func newTable(_ origin: Origin, below parent: Int, at part: KeyPart) throws(TOMLError) -> Int {
        let depth = tables[parent].depth + 1
        guard depth <= maximumDepth else {
            throw TOMLError(at: part.position, "tables nest deeper than \(maximumDepth) levels")
        }
        tables.append(Table(origin: origin, depth: depth, position: part.position))
        return tables.count - 1
    }

    private mutating func insert(_ slot: Slot, into table: Int) {
        tables[table].indices[slot.key] = tables[table].slots.count
        tables[table].slots.append(slot)
    }

    /// "key "b" … (first written at 3:1)" at the second mention.
    private func redefinition(_ part: KeyPart, at table: Int, _ problem: String) -> TOMLError {
        let first = tables[table].indices[part.name].map { " (first written at \(tables[table].slots[$0].keyPosition))" }
        return TOMLError(at: part.position, "key \"\(part.name)\" \(problem)\(first ?? "")")
    }

    // MARK: - Finishing

    private func table(_ index: Int) -> TOMLTable {
        TOMLTable(
            entries: tables[index].slots.map { slot in
                let node: TOMLNode
                switch slot.content {
                case .value(let value): node = value
                case .table(let child): node = TOMLNode(.table(table(child)), at: slot.keyPosition)
                case .tableArray(let elements, let position):
                    node = TOMLNode(.array(elements.map { TOMLNode(.table(table($0)), at: tables[$0].position) }), at: position)
                }
                return TOMLTable.Entry(key: slot.key, keyPosition: slot.keyPosition, node: node)
            })
    }
}
