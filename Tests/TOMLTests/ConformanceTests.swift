import TOML
import Testing

/// Every case of the toml-test suite: valid documents parse to exactly the expected values,
/// invalid ones are refused with an error at a position inside the document.
///
/// The suite's `version.go` excludes one valid case from TOML 1.0, `valid/string/escape-esc`
/// (the `\e` escape, added in TOML 1.1). The parser accepts `\e`, which no 1.0 document can
/// contain, so that case runs too and every case of the suite is expected to pass.
@Suite struct ConformanceTests {
    @Test func everyValidDocumentParsesToTheExpectedValues() throws {
        let cases = try TOMLTestSuite.cases("valid")
        var failures: [String] = []
        for path in cases {
            do {
                let table = try TOMLParser.parse(utf8: try TOMLTestSuite.bytes(path))
                if let mismatch = Self.mismatch(.table(table), try TOMLTestSuite.expectation(path), at: "") {
                    failures.append("\(path): \(mismatch)")
                }
            } catch let error as TOMLError {
                failures.append("\(path): refused: \(error)")
            }
        }
        print("toml-test valid: \(cases.count - failures.count) of \(cases.count) parsed to the expected values")
        #expect(cases.count >= 100)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func everyInvalidDocumentIsRefusedWithAPosition() throws {
        let cases = try TOMLTestSuite.cases("invalid")
        var failures: [String] = []
        for path in cases {
            let bytes = try TOMLTestSuite.bytes(path)
            let lines = bytes.count(where: { $0 == UInt8(ascii: "\n") }) + 1
            do {
                let table = try TOMLParser.parse(utf8: bytes)
                failures.append("\(path): accepted as \(table)")
            } catch {
                if !(1...lines).contains(error.position.line) || error.position.column < 1 || error.message.isEmpty {
                    failures.append("\(path): error outside the document: \(error)")
                }
            }
        }
        print("toml-test invalid: \(cases.count - failures.count) of \(cases.count) refused with a positioned error")
        #expect(cases.count >= 200)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// Why `value` differs from the suite's `expected`, or `nil` when it does not.
    static func mismatch(_ value: TOMLValue, _ expected: Any, at key: String) -> String? {
        switch (value, expected) {
        case (.table(let table), let expected as [String: Any]) where !isTypedValue(expected):
            let keys = table.entries.map(\.key)
            guard Set(keys) == Set(expected.keys), keys.count == expected.count else {
                return "\(key): keys \(keys.sorted()), expected \(expected.keys.sorted())"
            }
            for entry in table.entries {
                if let problem = mismatch(entry.node.value, expected[entry.key] as Any, at: key + "." + entry.key) {
                    return problem
                }
            }
            return nil
        case (.array(let elements), let expected as [Any]):
            guard elements.count == expected.count else { return "\(key): \(elements.count) elements, expected \(expected.count)" }
            for (index, (element, want)) in zip(elements, expected).enumerated() {
                if let problem = mismatch(element.value, want, at: "\(key)[\(index)]") { return problem }
            }
            return nil
        case (_, let expected as [String: Any]) where isTypedValue(expected):
            let type = expected["type"] as? String ?? ""
            let text = expected["value"] as? String ?? ""
            return matchesScalar(value, type: type, text: text) ? nil : "\(key): \(value), expected \(type) \(text)"
        default:
            return "\(key): \(value), expected \(expected)"
        }
    }

    private static func isTypedValue(_ object: [String: Any]) -> Bool {
        object.count == 2 && object["type"] is String && object["value"] is String
    }

    private static func matchesScalar(_ value: TOMLValue, type: String, text: String) -> Bool {
        switch (type, value) {
        case ("string", .string(let string)): return string == text
        case ("integer", .integer(let integer)): return Int64(text) == integer
        case ("bool", .boolean(let boolean)): return String(boolean) == text
        case ("float", .float(let float)):
            if text.hasSuffix("nan") { return float.isNaN }
            if text.hasSuffix("inf") { return float == (text.hasPrefix("-") ? -Double.infinity : .infinity) }
            return Double(text) == float
        case ("datetime", .offsetDateTime), ("datetime-local", .localDateTime), ("date-local", .localDate),
            ("time-local", .localTime):
            return value.dateTimeDescription == canonicalDateTime(text)
        default: return false
        }
    }

    /// RFC 3339 text as ``TOMLValue/dateTimeDescription`` spells it: `T` and `Z` in capitals,
    /// no trailing zeros in the fraction, `Z` for a zero offset.
    static func canonicalDateTime(_ text: String) -> String {
        var text = text.uppercased().replacingOccurrences(of: " ", with: "T")
        for zero in ["+00:00", "-00:00"] where text.hasSuffix(zero) { text = text.dropLast(zero.count) + "Z" }
        guard let dot = text.firstIndex(of: ".") else { return text }
        let digitsEnd = text[text.index(after: dot)...].firstIndex { !$0.isNumber } ?? text.endIndex
        var fraction = String(text[text.index(after: dot)..<digitsEnd].prefix(9))
        while fraction.last == "0" { fraction.removeLast() }
        return text[..<dot] + (fraction.isEmpty ? "" : "." + fraction) + text[digitsEnd...]
    }
}
