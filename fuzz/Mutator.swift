import ExtensiondTestSupport

/// Structure-aware mutations: a valid message made wrong in one of the ways a careless or
/// hostile peer would (a field of the wrong type, a huge or negative number, deep nesting,
/// a huge string, an unknown or missing field, a truncated line, garbage bytes). Seeded:
/// the same seed gives the same messages.
struct Mutator {
    var random: SeededRandom
    /// Per kind of mutation, how many were made (printed at the end).
    private(set) var counts: [String: Int] = [:]

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int.random(in: 0..<choices.count, using: &random)]
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &random)
    }

    /// `message` as one line, mutated once (or, rarely, several times).
    mutating func mutatedLine(_ message: JSONText) -> [UInt8] {
        var value = message
        for _ in 0..<(chance(0.1) ? int(2...4) : 1) { value = mutate(value) }
        let line = value.line
        switch int(0...19) {
        case 0: return count("truncated", Array(line.prefix(int(0...max(0, line.count - 1)))) + [0x0A])
        case 1: return count("garbage bytes", garbage(int(1...64)) + [0x0A])
        case 2:
            var bytes = line
            bytes[int(0...(bytes.count - 1))] = UInt8.random(in: 0...255, using: &random)
            return count("flipped byte", bytes)
        default: return line
        }
    }

    /// One mutation at a random place of the tree.
    mutating func mutate(_ value: JSONText) -> JSONText {
        switch value {
        case .object(var members) where !members.isEmpty && chance(0.7):
            let index = int(0...(members.count - 1))
            switch int(0...9) {
            case 0:
                members.remove(at: index)
                counts["missing field", default: 0] += 1
            case 1:
                members.append((pick(["extra", "type", "id", "zzz", ""]), scalar()))
                counts["unknown or repeated field", default: 0] += 1
            default:
                members[index].1 = mutate(members[index].1)
            }
            return .object(members)
        case .array(var elements) where !elements.isEmpty && chance(0.7):
            let index = int(0...(elements.count - 1))
            elements[index] = mutate(elements[index])
            return .array(elements)
        default:
            return replacement(for: value)
        }
    }

    /// A value in place of `value`: of another type, out of range, huge or deep.
    private mutating func replacement(for value: JSONText) -> JSONText {
        switch int(0...8) {
        case 0: return count("wrong type", scalar())
        case 8: return count("domain extreme", extreme())
        case 1:
            return count(
                "huge number",
                .number(
                    pick([
                        "18446744073709551616", "9223372036854775808", "1e999", "-1e999",
                        "9007199254740993", "123456789012345678901234567890",
                    ])))
        case 2: return count("negative number", .number(pick(["-1", "-0", "-9223372036854775808", "-0.5", "-1e30"])))
        case 3: return count("fraction", .number(pick(["0.5", "1.0000001", "3e-7", "1E2"])))
        case 4: return count("deep nesting", deep(int(64...5000)))
        case 5:
            return count(
                "huge string", .string(String(repeating: pick(["a", "é", "\u{1F600}", "\\", "\""]), count: int(4096...(chance(0.02) ? 1_100_000 : 20_000)))))
        case 6: return count("odd string", .string(pick(["", " ", "\u{0}", "\u{FFFD}", "../../etc/passwd", "a\nb", "%s%n", "\u{202E}rtl"])))
        default: return count("empty container", pick([.array([]), .object([]), .null]))
        }
    }

    /// A value at or just past the end of one of the protocols' domains (ids, sizes, times).
    mutating func extreme() -> JSONText {
        chance(0.5)
            ? .number(pick(chance(0.5) ? ValueExtremes.requestIDs : ValueExtremes.sides))
            : .string(pick(chance(0.8) ? ValueExtremes.dates : ValueExtremes.pastTheDates))
    }

    private mutating func scalar() -> JSONText {
        pick([.null, .bool(true), .bool(false), .int(0), .int(-1), .string("x"), .array([.int(1)]), .object([("a", .int(1))])])
    }

    private mutating func deep(_ depth: Int) -> JSONText {
        if chance(0.5) {
            return .raw(
                Array(repeating: Array("{\"a\":".utf8), count: depth).flatMap { $0 } + [UInt8(ascii: "1")]
                    + Array(repeating: UInt8(ascii: "}"), count: depth))
        }
        return .raw(Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth))
    }

    mutating func garbage(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }.map { $0 == 0x0A ? 0x20 : $0 }
    }

    private mutating func count<T>(_ kind: String, _ value: T) -> T {
        counts[kind, default: 0] += 1
        return value
    }

    /// Splits `bytes` into writes the way a network would: several messages in one write,
    /// or one message over several.
    mutating func interleave(_ lines: [[UInt8]]) -> [[UInt8]] {
        let joined = lines.flatMap { $0 }
        guard chance(0.3), joined.count > 1 else { return chance(0.5) ? [joined] : lines }
        counts["split writes", default: 0] += 1
        var writes: [[UInt8]] = []
        var start = 0
        while start < joined.count {
            let end = min(joined.count, start + int(1...max(1, joined.count / 3)))
            writes.append(Array(joined[start..<end]))
            start = end
        }
        return writes
    }
}
