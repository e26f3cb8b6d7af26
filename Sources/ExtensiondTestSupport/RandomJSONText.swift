/// Random JSON texts as other writers write them: members in any order, whitespace
/// between tokens, escapes where none is needed, numbers in every notation.
public enum RandomJSONText {
    public static func value(depth: Int, using random: inout SeededRandom) -> [UInt8] {
        switch Int.random(in: 0..<(depth > 0 ? 9 : 6), using: &random) {
        case 0: return Array(["null", "true", "false"].randomElement(using: &random)!.utf8)
        case 1, 2: return number(using: &random)
        case 3, 4, 5: return string(using: &random)
        case 6, 7:
            let members = (0..<Int.random(in: 0...5, using: &random)).map { _ in
                key(using: &random) + space(&random) + [UInt8(ascii: ":")] + space(&random) + value(depth: depth - 1, using: &random)
            }
            return [UInt8(ascii: "{")] + space(&random) + members.joined(separator: space(&random) + [UInt8(ascii: ",")] + space(&random))
                + space(&random) + [UInt8(ascii: "}")]
        default:
            let elements = (0..<Int.random(in: 0...5, using: &random)).map { _ in value(depth: depth - 1, using: &random) }
            return [UInt8(ascii: "[")] + elements.joined(separator: [UInt8(ascii: ",")] + space(&random)) + [UInt8(ascii: "]")]
        }
    }

    public static func space(_ random: inout SeededRandom) -> [UInt8] {
        Int.random(in: 0..<6, using: &random) == 0 ? Array([" ", "\t", "\n ", "\r\n"].randomElement(using: &random)!.utf8) : []
    }

    /// Mostly short ASCII keys that often repeat or tie on a prefix; sometimes escaped or
    /// not ASCII (the Kelvin sign is "K" to `String`, and "e" with a combining accent "é").
    public static func key(using random: inout SeededRandom) -> [UInt8] {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return string(using: &random)
        case 1: return Array(["\"é\"", "\"\u{212A}\"", "\"e\u{301}\""].randomElement(using: &random)!.utf8)
        case 2: return Array(#""\u0061""#.utf8)
        default:
            let names = ["a", "b", "ab", "ba", "A", "K", "", "text", "time", "t", "value", "_", "~", "Z9", "a b"]
            return Array("\"\(names.randomElement(using: &random)!)\"".utf8)
        }
    }

    public static func number(using random: inout SeededRandom) -> [UInt8] {
        let text =
            switch Int.random(in: 0..<7, using: &random) {
            case 0: "\(Int.random(in: -1000...1000, using: &random))"
            case 1: "\(Int64.random(in: .min ... .max, using: &random))"
            case 2: "\(Int.random(in: 0...99, using: &random)).\(Int.random(in: 0...999, using: &random))"
            case 3:
                "\(Int.random(in: -9...9, using: &random))e\(["", "+", "-"].randomElement(using: &random)!)\(Int.random(in: 0...400, using: &random))"
            case 4: "\(Double.random(in: -1e6...1e6, using: &random))"
            case 5: String(repeating: "9", count: Int.random(in: 14...17, using: &random))
            default: ["-0", "0", "0.0", "1E5", "-0.0e0", "100000000000000000000"].randomElement(using: &random)!
            }
        return Array(text.utf8)
    }

    public static func string(using random: inout SeededRandom) -> [UInt8] {
        var text: [UInt8] = [UInt8(ascii: "\"")]
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: text += Array("abc xyz/~".utf8.shuffled(using: &random).prefix(Int.random(in: 0...9, using: &random)))
            case 1: text += Array(["é", "€", "😀", "\u{7F}", "ﬀ", "\u{212A}"].randomElement(using: &random)!.utf8)
            case 2: text += Array([#"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#].randomElement(using: &random)!.utf8)
            default:
                let scalar = [UInt32.random(in: 0...0x1F, using: &random), UInt32.random(in: 0x20...0x7F, using: &random), 0x22, 0x5C, 0xE9, 0xD83D]
                    .randomElement(using: &random)!
                let hex = String(scalar, radix: 16)
                let digits = String(repeating: "0", count: 4 - hex.count) + hex
                text += Array(("\\u" + (Bool.random(using: &random) ? digits : digits.uppercased())).utf8)
            }
        }
        return text + [UInt8(ascii: "\"")]
    }
}
