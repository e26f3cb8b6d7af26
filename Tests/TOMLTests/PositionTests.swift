import TOML
import Testing

/// Every key and value knows where it was written; errors point at the offending character.
@Suite struct PositionTests {
    private static let text = """
        top = 1
        [a . "b.c"]
        list = [ 1,
          { x = 2 } ]
        [[arr]]
        k = 'v'
        [[arr]]
        k = "é"
        z = 0
        """

    private let document: TOMLTable

    init() throws { document = try TOMLParser.parse(Self.text) }

    private func node(_ path: [Any]) -> TOMLNode? {
        var current = TOMLNode(.table(document), at: TOMLPosition(line: 1, column: 1))
        for step in path {
            switch (current.value, step) {
            case (.table(let table), let key as String): guard let next = table[key] else { return nil }; current = next
            case (.array(let elements), let index as Int) where elements.indices.contains(index): current = elements[index]
            default: return nil
            }
        }
        return current
    }

    private func keyPosition(_ path: [String], _ key: String) -> [Int]? {
        guard case .table(let table)? = node(path)?.value,
            let entry = table.entries.first(where: { $0.key == key })
        else { return nil }
        return [entry.keyPosition.line, entry.keyPosition.column]
    }

    private func at(_ path: Any...) -> [Int]? { node(path).map { [$0.position.line, $0.position.column] } }

    @Test func keysTablesAndElements() {
        #expect(keyPosition([], "top") == [1, 1])
        #expect(at("top") == [1, 7])
        #expect(keyPosition([], "a") == [2, 2])
        #expect(keyPosition(["a"], "b.c") == [2, 6])
        #expect(at("a", "b.c") == [2, 6])
        #expect(at("a", "b.c", "list") == [3, 8])
        #expect(at("a", "b.c", "list", 1) == [4, 3])
        #expect(at("arr", 0) == [5, 3])
        #expect(at("arr", 1) == [7, 3])
        #expect(at("arr", 1, "k") == [8, 5])
    }

    /// Columns count characters, not bytes: "é" is two bytes.
    @Test func columnsCountUnicodeScalars() throws {
        let table = try TOMLParser.parse("e = { \"é\" = \"x\", B = 5 }\n")
        guard case .table(let inline)? = table["e"]?.value else { Issue.record("not a table"); return }
        #expect(inline.entries.map(\.keyPosition) == [TOMLPosition(line: 1, column: 7), TOMLPosition(line: 1, column: 18)])
    }

    @Test func anImplicitTableIsLocatedWhereItsHeaderDefinesIt() throws {
        let table = try TOMLParser.parse("[a.b]\nx = 1\n\n[a]\ny = 2\n")
        #expect(table.entries.first?.keyPosition == TOMLPosition(line: 4, column: 2))
    }

    @Test(arguments: [
        ("[\n", 1, 2, "expected a key"),
        ("[.", 1, 2, "expected a key"),
        ("[[[", 1, 3, "expected a key"),
        ("a = 1\nb = \"x\n", 2, 7, "expected \" to close the string opened at 2:5"),
        ("a = 1\na = 2\n", 2, 1, "key \"a\" is already defined (first written at 1:1)"),
        ("[t]\n[t]\n", 2, 2, "key \"t\" cannot be defined again by a table header (first written at 1:2)"),
        ("x = [1,,2]", 1, 8, "expected a value"),
        ("x = 1979-02-29", 1, 5, "1979-02-29 is not a date"),
        ("x = 9223372036854775808", 1, 5, "the integer is out of the 64-bit range"),
        ("x = { a = 1,\n b = 2 }", 1, 13, "expected a key"),
        ("x = \"\\q\"", 1, 6, "\\\"q\" is not an escape"),
        ("é = 1", 1, 1, "expected a key"),
        ("x = 1 y = 2", 1, 7, "expected the end of the line after the value, found \"y\""),
    ])
    func errorsPointAtTheOffendingCharacter(text: String, line: Int, column: Int, message: String) {
        #expect(throws: TOMLError.self) { try TOMLParser.parse(text) }
        do {
            _ = try TOMLParser.parse(text)
        } catch {
            #expect([error.position.line, error.position.column] == [line, column], "\(error)")
            #expect(error.message.hasPrefix(message), "\(error)")
        }
    }
}
