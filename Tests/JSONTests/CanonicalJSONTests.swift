import ExtensiondTestSupport
import Testing

@testable import JSON

/// `JSONScanner.canonicalValue` never disagrees with the tree: over many random JSON texts
/// (members in any order, whitespace, every escape, numbers in every notation, extremes),
/// it either declines or writes exactly the bytes `JSONValue.write` writes for the value
/// the parser decodes; it declines everything the parser refuses.
@Suite struct CanonicalJSONTests {
    /// The written form of `text`, or `nil` when the scanner declines it.
    static func canonical(_ text: [UInt8], limits: JSONLimits = .standard) -> [UInt8]? {
        text.withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            var output: [UInt8] = []
            return scanner.canonicalValue(into: &output, depth: 0, limits: limits) && scanner.isAtEnd() ? output : nil
        }
    }

    /// What the tree writes for `text`, or `nil` when the parser or the tree refuses it.
    static func written(_ text: [UInt8], limits: JSONLimits = .standard) -> [UInt8]? {
        guard let value = try? JSONCoding.decode(JSONValue.self, from: text, limits: limits) else { return nil }
        var output: [UInt8] = []
        value.write(to: &output)
        return output
    }

    /// Checks one text; returns whether the scanner took it.
    @discardableResult
    static func check(_ text: [UInt8], limits: JSONLimits = .standard, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let fast = canonical(text, limits: limits) else { return false }
        let expected = written(text, limits: limits)
        #expect(fast == expected, "\(String(decoding: text, as: UTF8.self))", sourceLocation: sourceLocation)
        return true
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomTextsAgreeWithTheTree(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var taken = 0, rewritten = 0
        for _ in 0..<2500 {
            let text = RandomJSONText.value(depth: 5, using: &random)
            if Self.check(text) {
                taken += 1
                if Self.canonical(text) != text { rewritten += 1 }
            }
        }
        // Most are taken, and many of those rewritten (members put in order, whitespace
        // dropped, escapes and numbers as the tree writes them).
        #expect(taken > 1000)
        #expect(rewritten > 300)
    }

    /// Texts broken at random (a byte changed, dropped or cut off) are declined whenever
    /// the parser refuses them, and written as the tree writes them otherwise.
    @Test func brokenTextsAreDeclinedOrAgree() {
        var random = SeededRandom(seed: 11)
        let noise: [UInt8] = [0x00, 0x1F, 0x22, 0x5C, 0x2C, 0x3A, 0x7B, 0x7D, 0x5B, 0x5D, 0x80, 0xBF, 0xC0, 0xC3, 0xE0, 0xED, 0xF4, 0xF5, 0xFF]
        for _ in 0..<5000 {
            var text = RandomJSONText.value(depth: 3, using: &random)
            guard !text.isEmpty else { continue }
            let index = Int.random(in: 0..<text.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: text[index] = noise.randomElement(using: &random)!
            case 1: text.remove(at: index)
            default: text.removeSubrange(index...)
            }
            Self.check(text)
        }
    }

    @Test func extremesAgreeWithTheTree() {
        let taken = [
            "0", "-0", "999999999999999", "-999999999999999", "1000000000000000", "9999999999999999", "12345678901234567890",
            "1.0", "-1.50", "1e2", "1E+2", "1e-7", "0.1", "1.7976931348623157e308", "5e-324", "1e-400", "-1e-400",
            #""\u0000\u001f\u001F\b\f\n\r\t\"\\\/\u0041\u007f\u0022\u005C\u000a""#, #""é€😀\u007F""#,
            #"{"b":1,"a":{"d":[],"c":{}},"":0}"#, #"{ "z" : [ 1 , { "y":null, "x":true } ] , "a":false }"#,
            "[]", "{}", "[[[]]]", #"{"a":[{"c":1,"b":2},{"b":3,"a":4}]}"#,
        ]
        for text in taken {
            #expect(Self.check(Array(text.utf8)), "\(text)")
        }
        let declined = [
            "1e400", "-1e400", "01", "1.", ".5", "-", "+1", "1e", "tru", "nul", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}",
            #""\u00e9""#, #""\ud83d\ude00""#, #""\ud800""#, #""\x""#, "\"a\u{01}\"", "\"abc", #"{"a":1,"a":2}"#,
            #"{"b":1,"a":2,"b":3}"#, #"{"é":1}"#, #"{"\n":1}"#, #"{"\u0041":1}"#, "[1] 2", "",
        ]
        for text in declined {
            #expect(Self.canonical(Array(text.utf8)) == nil, "\(text)")
        }
        let invalidUTF8: [[UInt8]] = [
            [0x22, 0xC0, 0x80, 0x22], [0x22, 0xC2, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0xE0, 0x80, 0x80, 0x22], [0x22, 0xF0, 0x80, 0x80, 0x80, 0x22], [0x22, 0xFF, 0x22], [0x22, 0x80, 0x22],
        ]
        for text in invalidUTF8 {
            #expect(Self.canonical(text) == nil && Self.written(text) == nil, "\(text)")
        }
    }

    /// Nested exactly as deep as the parser allows: taken; one level more: declined.
    @Test func depthIsBoundedAsByTheParser() {
        let limits = JSONLimits(maxBytes: 1 << 20, maxDepth: 8)
        for depth in 1...10 {
            let arrays = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
            let objects = Array(String(repeating: #"{"a":"#, count: depth - 1).utf8) + Array("{}".utf8) + Array(repeating: UInt8(ascii: "}"), count: depth - 1)
            for text in [arrays, objects] {
                #expect((Self.canonical(text, limits: limits) != nil) == (depth <= 8), "depth \(depth)")
                #expect((Self.written(text, limits: limits) != nil) == (depth <= 8))
                Self.check(text, limits: limits)
            }
        }
    }

    /// What the tree writes, it takes back unchanged (but for keys it cannot compare as bytes).
    @Test func writtenValuesAreTakenAsTheyAre() {
        var random = SeededRandom(seed: 5)
        var taken = 0
        for _ in 0..<3000 {
            var text: [UInt8] = []
            RandomJSON.value(depth: 4, using: &random).write(to: &text)
            if let fast = Self.canonical(text) {
                taken += 1
                #expect(fast == text)
            }
        }
        #expect(taken > 1000)
    }

    /// The scanner's UTF-8 check is the standard library's, over random byte sequences.
    @Test func utf8SequencesAreCheckedAsByTheStandardLibrary() {
        var random = SeededRandom(seed: 3)
        for _ in 0..<20000 {
            let leads: [ClosedRange<UInt8>] = [
                0x80...0xBF, 0xC0...0xC1, 0xC2...0xDF, 0xE0...0xE0, 0xE1...0xEC, 0xED...0xED, 0xEE...0xEF, 0xF0...0xF4, 0xF5...0xFF,
            ]
            let tails: [ClosedRange<UInt8>] = [0x80...0x8F, 0x90...0x9F, 0xA0...0xBF, 0x00...0x7F, 0xC0...0xFF]
            var bytes = [UInt8.random(in: leads.randomElement(using: &random)!, using: &random)]
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                bytes.append(UInt8.random(in: tails.randomElement(using: &random)!, using: &random))
            }
            let length = UTF8Sequence.length(first: bytes[0]) { $0 < bytes.count ? bytes[$0] : nil }
            let standard = (1...bytes.count).first { String(validating: bytes[..<$0], as: UTF8.self) != nil }
            #expect(length == standard, "\(bytes)")
        }
    }
}
