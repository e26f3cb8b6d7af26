import ExtensiondTestSupport
import JSON
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Many seeded random JSON values: the coder's output decodes to the same value, is the
/// byte-for-byte output of Foundation's `JSONEncoder` it replaces, and is JSON to Python.
@Suite struct JSONCodingPropertyTests {
    static let seeds: [UInt64] = [1, 2, 3, 4, 5, 6, 7, 8]

    @Test(arguments: seeds)
    func encodeThenDecodeIsIdentity(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for _ in 0..<300 {
            let value = RandomJSON.value(depth: 4, using: &random)
            let bytes = try JSONCoding.encode(value)
            #expect(try JSONCoding.decode(JSONValue.self, from: bytes) == value, "seed \(seed)")
            var written: [UInt8] = []
            value.write(to: &written)
            #expect(written == bytes, "the direct writer agrees with the coder")
        }
    }

    @Test(arguments: seeds)
    func outputIsWhatFoundationWrote(seed: UInt64) throws {
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var random = SeededRandom(seed: seed)
        for _ in 0..<300 {
            let value = RandomJSON.value(depth: 4, using: &random)
            let ours = try JSONCoding.encode(value)
            #expect(ours == Array(try foundation.encode(value)), "seed \(seed): \(String(decoding: ours, as: UTF8.self))")
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(ours)) == value)
        }
    }

    /// Python re-encodes every line with `\u` escapes only (surrogate pairs for astral
    /// characters); decoding that gives the same values again.
    @Test func pythonReadsTheOutput() throws {
        var random = SeededRandom(seed: 42)
        let values = (0..<500).map { _ in RandomJSON.value(depth: 4, using: &random) }
        let directory = try TemporaryDirectory(prefix: "json")
        var lines: [UInt8] = []
        for value in values {
            lines += try JSONCoding.encode(value) + [UInt8(ascii: "\n")]
        }
        try #require(FileManager.default.createFile(atPath: directory.file("in.json"), contents: Data(lines)))
        let script = "import json,sys\nfor line in open(sys.argv[1], encoding='utf-8'):\n print(json.dumps(json.loads(line), ensure_ascii=True))"
        let python = try TestProcess("/usr/bin/python3", ["-c", script, directory.file("in.json")], outputIn: directory.path, name: "python")
        #expect(python.wait(timeout: 30) == 0, "\(python.stderr)")
        let reencoded = python.stdout.split(separator: "\n")
        #expect(reencoded.count == values.count)
        for (line, value) in zip(reencoded, values) {
            #expect(try JSONCoding.decode(JSONValue.self, from: Array(line.utf8)) == value, "\(line)")
        }
    }
}

/// Random JSON values whose strings reach every class of character the coder treats apart.
enum RandomJSON {
    static func value(depth: Int, using random: inout SeededRandom) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(number(using: &random))
        case 3, 4: return .string(string(using: &random))
        case 5, 6:
            return .object(
                Dictionary(
                    (0..<Int.random(in: 0...5, using: &random)).map { _ in (string(using: &random), value(depth: depth - 1, using: &random)) },
                    uniquingKeysWith: { first, _ in first }))
        default:
            return .array((0..<Int.random(in: 0...5, using: &random)).map { _ in value(depth: depth - 1, using: &random) })
        }
    }

    static func number(using random: inout SeededRandom) -> Double {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return Double(Int.random(in: -1_000_000...1_000_000, using: &random))
        case 1: return Double(Int64.random(in: -(1 << 53)...(1 << 53), using: &random))
        case 2: return Double.random(in: -1000...1000, using: &random)
        default:
            let bits = UInt64.random(in: .min ... .max, using: &random)
            let number = Double(bitPattern: bits)
            return number.isFinite ? number : 0
        }
    }

    static func string(using random: inout SeededRandom) -> String {
        let pools: [ClosedRange<UInt32>] = [
            0x20...0x7E, 0x00...0x1F, 0x22...0x22, 0x5C...0x5C, 0x2F...0x2F, 0x80...0x7FF,
            0x800...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF,
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            let pool = pools[Int.random(in: 0..<pools.count, using: &random)]
            scalars.append(Unicode.Scalar(UInt32.random(in: pool, using: &random))!)
        }
        return String(scalars)
    }
}
