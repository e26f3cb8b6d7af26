import ExtensiondTestSupport
import TOML
import Testing

/// No input makes the parser trap, hang or nest without bound: random documents, mutations
/// of the conformance suite's documents and pathological nesting all end in a tree or in an
/// error positioned inside the document.
@Suite struct RobustnessTests {
    /// Fragments that exercise every construct, glued at random.
    static let fragments = [
        "[", "]", "[[", "]]", "{", "}", "=", ",", ".", "\"", "'", "\"\"\"", "'''", "\\", "\\u00e9", "\\U0001F600",
        "\n", "\r\n", "\r", " ", "\t", "#", "a", "b.c", "\"k\"", "'k'", "1", "-0", "+1.5e-3", "0x_", "0xFF", "0o7",
        "0b1", "1_000", "inf", "-nan", "true", "false", "1979-05-27", "T07:32:00", " 07:32:00.999999999999",
        "Z", "+05:30", "1979-02-29", "é", "\u{0}", "\u{7F}", "\u{FEFF}", "9223372036854775808", "1e400",
    ]

    /// Whether `error` lies inside `bytes` (one line past the last for an unterminated last line).
    private func isInside(_ error: TOMLError, _ bytes: [UInt8]) -> Bool {
        let lines = bytes.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        return (1...lines).contains(error.position.line) && error.position.column >= 1
            && error.position.column <= bytes.count + 1 && !error.message.isEmpty
    }

    @Test func randomDocumentsEndInATreeOrAPositionedError() {
        var random = SeededRandom(seed: 8)
        var parsed = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...24, using: &random)
            let bytes = Array((0..<count).map { _ in Self.fragments.randomElement(using: &random) ?? "" }.joined().utf8)
            do {
                _ = try TOMLParser.parse(utf8: bytes)
                parsed += 1
            } catch {
                #expect(isInside(error, bytes), "\(error) in \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
        }
        #expect(parsed > 0)
    }

    /// The suite's documents with bytes replaced, inserted, deleted or repeated.
    @Test func mutatedSuiteDocumentsEndInATreeOrAPositionedError() throws {
        let documents = try (TOMLTestSuite.cases("valid") + TOMLTestSuite.cases("invalid")).map(TOMLTestSuite.bytes)
        var random = SeededRandom(seed: 10)
        let alphabet = Array("[]{}=,.\"'\\#\n\r\t 0aZ_-+:eT".utf8) + [0x00, 0x7F, 0xC3, 0xA9, 0xFF]
        var outcomes = (parsed: 0, refused: 0)
        for _ in 0..<10 {
            for original in documents where !original.isEmpty {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let at = Int.random(in: 0..<max(bytes.count, 1), using: &random)
                    let byte = alphabet.randomElement(using: &random) ?? 0
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0 where at < bytes.count: bytes[at] = byte
                    case 1: bytes.insert(byte, at: min(at, bytes.count))
                    case 2 where at < bytes.count: bytes.remove(at: at)
                    default: bytes.insert(contentsOf: bytes[at..<min(at + 8, bytes.count)], at: at)
                    }
                }
                do {
                    _ = try TOMLParser.parse(utf8: bytes)
                    outcomes.parsed += 1
                } catch {
                    outcomes.refused += 1
                    #expect(isInside(error, bytes), "\(error) in \(String(decoding: bytes, as: UTF8.self).debugDescription)")
                }
            }
        }
        #expect(outcomes.parsed > 0 && outcomes.refused > 0)
    }

    /// A document too deeply nested, named for the test log.
    struct Pathological: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var text: String
    }

    @Test(arguments: [
        Pathological(testDescription: "100,000 [", text: String(repeating: "[", count: 100_000)),
        Pathological(testDescription: "an array in 100,000 arrays", text: "a = " + String(repeating: "[", count: 100_000)),
        Pathological(testDescription: "100,000 inline tables", text: "a = " + String(repeating: "{b=", count: 100_000)),
        Pathological(
            testDescription: "arrays then inline tables",
            text: "a = " + String(repeating: "[", count: 50) + String(repeating: "{b=", count: 60)),
        Pathological(
            testDescription: "a header of 100,000 keys",
            text: "[" + Array(repeating: "a", count: 100_000).joined(separator: ".") + "]"),
        Pathological(
            testDescription: "a dotted key of 100,000 parts",
            text: Array(repeating: "a", count: 100_000).joined(separator: ".") + " = 1"),
        Pathological(
            testDescription: "a dotted key of 60 parts holding 60 arrays",
            text: Array(repeating: "a", count: 60).joined(separator: ".") + " = " + String(repeating: "[", count: 60)),
    ])
    func pathologicalNestingIsRefusedAtALimit(_ document: Pathological) {
        #expect(throws: TOMLError.self) { try TOMLParser.parse(document.text) }
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let depth = TOMLParser.maximumDepth
        _ = try TOMLParser.parse("a = " + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1))
        _ = try TOMLParser.parse("[" + Array(repeating: "a", count: depth).joined(separator: ".") + "]")
    }

    /// A long document parses in one pass: 20,000 keys and a 1 MiB string.
    @Test func largeDocumentsParse() throws {
        var text = (0..<20_000).map { "k\($0) = \($0)\n" }.joined()
        text += "s = \"" + String(repeating: "x", count: 1 << 20) + "\"\n"
        let table = try TOMLParser.parse(text)
        #expect(table.entries.count == 20_001)
        #expect(table["k19999"]?.value == .integer(19_999))
    }
}
