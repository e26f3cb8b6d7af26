import JSON
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The project's JSON coder: escapes, UTF-8, numbers, limits and the paths its errors name.
@Suite struct JSONCodingTests {
    struct Inner: Codable, Equatable {
        var name: String
        var tags: [String]?
    }

    struct Outer: Codable, Equatable {
        var id: UInt64
        var ratio: Double
        var flag: Bool
        var note: String?
        var items: [Inner]
        var counts: [String: Int]
        var small: Int8
        var signed: Int64
    }

    static let sample = Outer(
        id: .max, ratio: 0.1, flag: true, note: nil,
        items: [.init(name: "a/b \"q\" \u{1}\n", tags: ["x", "é", "😀"]), .init(name: "", tags: nil)],
        counts: ["z": 1, "A": -2, "a10": 3, "a2": 4, "é": 5], small: -128, signed: .min)

    @Test func roundTripsAndMatchesFoundationsEncoder() throws {
        let bytes = try JSONCoding.encode(Self.sample)
        #expect(try JSONCoding.decode(Outer.self, from: bytes) == Self.sample)
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: try foundation.encode(Self.sample), as: UTF8.self))
    }

    @Test func everyEscapeDecodes() throws {
        let text = #""\"\\\/\b\f\n\r\t\u0000\u001F\u00e9\u20AC\ud83d\ude00""#
        #expect(try JSONCoding.decode(String.self, from: Array(text.utf8)) == "\"\\/\u{8}\u{C}\n\r\t\u{0}\u{1F}é€😀")
    }

    @Test func controlCharactersAreEscapedAsFoundationDid() throws {
        let all = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self) + "\u{2028}é😀"
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.withoutEscapingSlashes]
        #expect(try JSONCoding.encode(all) == Array(try foundation.encode(all)))
        #expect(try JSONCoding.decode(String.self, from: JSONCoding.encode(all)) == all)
    }

    @Test(
        arguments: [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xE2, 0x82, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
            [0x22, 0x5C, 0x6E, 0xF8, 0x22],
        ] as [[UInt8]])
    func invalidUTF8IsRejected(bytes: [UInt8]) {
        #expect(syntaxError(bytes)?.problem == "invalid UTF-8 in a string")
    }

    @Test(arguments: [#""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800x""#, #""\udc00\ud800""#])
    func loneSurrogatesAreRejected(text: String) {
        #expect(syntaxError(Array(text.utf8))?.problem == "lone surrogate in a string")
    }

    @Test(arguments: [
        ("{\"a\":1,}", 7), ("[1,]", 3), ("01", 1), ("1.", 2), ("-", 1), ("1e", 2), ("\"a", 0), ("[1] x", 4),
        ("nul", 0), ("", 0), ("{\"a\" 1}", 5), ("\"\u{1}\"", 1), ("\"\\x\"", 2), ("\"\\u12G4\"", 5), ("{1:2}", 1),
    ])
    func syntaxErrorsSayWhere(text: String, offset: Int) {
        #expect(syntaxError(Array(text.utf8))?.offset == offset, "\(text)")
    }

    @Test func deepNestingIsRefused() throws {
        let depth = JSONLimits.standard.maxDepth
        let fits = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: Never.self) { try JSONCoding.decode(JSONValue.self, from: Array(fits.utf8)) }
        let deeper = "[" + fits + "]"
        #expect(syntaxError(Array(deeper.utf8))?.problem == "nested more than \(depth) levels deep")
        let objects = String(repeating: #"{"a":"#, count: 3) + "1}}}"
        #expect(throws: DecodingError.self) {
            try JSONCoding.decode(JSONValue.self, from: Array(objects.utf8), limits: .init(maxBytes: 100, maxDepth: 2))
        }
    }

    @Test func oversizedInputIsRefused() {
        let text = "[" + String(repeating: "1,", count: 60) + "1]"
        #expect(throws: DecodingError.self) {
            try JSONCoding.decode(JSONValue.self, from: Array(text.utf8), limits: .init(maxBytes: 100, maxDepth: 8))
        }
    }

    @Test func integersAreExact() throws {
        #expect(try JSONCoding.decode([UInt64].self, from: Array("[18446744073709551615,0]".utf8)) == [.max, 0])
        #expect(try JSONCoding.decode([Int64].self, from: Array("[-9223372036854775808,9223372036854775807]".utf8)) == [.min, .max])
        #expect(try JSONCoding.encode([UInt64.max]) == Array("[18446744073709551615]".utf8))
        #expect(try JSONCoding.decode([Int].self, from: Array("[1.0,1e2,-0]".utf8)) == [1, 100, 0])
    }

    @Test func hugeNumbersNameTheirField() throws {
        struct Fields: Decodable {
            var small: UInt8?
            var count: UInt64?
            var ratio: Double?
        }
        for (text, field) in [
            (#"{"count":18446744073709551616}"#, "count"), (#"{"small":256}"#, "small"),
            (#"{"count":1.5}"#, "count"), (#"{"count":-1}"#, "count"), (#"{"ratio":1e400}"#, "ratio"),
        ] {
            #expect(codingPath(of: Fields.self, text) == [field], "\(text)")
        }
        #expect(throws: DecodingError.self) { try JSONCoding.decode(JSONValue.self, from: Array("[1e400]".utf8)) }
        #expect(try JSONCoding.decode(JSONValue.self, from: Array("1e300".utf8)) == .number(1e300))
    }

    @Test func doublesRoundTripInTheirShortestForm() throws {
        let values: [Double] = [0, -0.0, 1, -1.5, 0.1, 1e20, 1e-7, 123_456_789_012_345_680, .pi, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        let bytes = try JSONCoding.encode(values)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "[0,-0,1,-1.5,0.1,1e+20,1e-07,1.2345678901234568e+17,3.141592653589793,5e-324,1.7976931348623157e+308]")
        #expect(try JSONCoding.decode([Double].self, from: bytes) == values)
        #expect(throws: EncodingError.self) { try JSONCoding.encode([Double.nan]) }
        #expect(try JSONCoding.encode(JSONValue.array([.number(.infinity)])) == Array("[null]".utf8))
    }

    @Test func errorsNameThePathOfTheField() {
        #expect(
            codingPath(of: Outer.self, #"{"id":1,"ratio":1,"flag":true,"items":[{"name":"a"},{"name":2}],"counts":{},"small":0,"signed":0}"#)
                == ["items", "Index 1", "name"])
        #expect(
            codingPath(of: Outer.self, #"{"id":1,"ratio":1,"flag":true,"items":[{"name":"a","tags":[1]}],"counts":{},"small":0,"signed":0}"#)
                == ["items", "Index 0", "tags", "Index 0"])
        #expect(
            codingPath(of: Outer.self, #"{"id":1,"ratio":1,"flag":true,"items":[],"counts":{"k":"v"},"small":0,"signed":0}"#)
                == ["counts", "k"])
        #expect(codingPath(of: Outer.self, #"{"id":1,"ratio":1,"flag":null,"items":[],"counts":{},"small":0,"signed":0}"#) == ["flag"])
        // A missing key is named by the error itself; its context is the object's path.
        do {
            _ = try JSONCoding.decode(Outer.self, from: Array(#"{"id":1,"ratio":1,"flag":true,"items":[{}],"counts":{},"small":0,"signed":0}"#.utf8))
            Issue.record("decoded")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "name" && context.codingPath.map(\.stringValue) == ["items", "Index 0"])
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func aRepeatedKeyKeepsItsFirstValueAsFoundationDid() throws {
        #expect(try JSONCoding.decode([String: Int].self, from: Array(#"{"a":1,"a":2}"#.utf8)) == ["a": 1])
        #expect(try JSONCoding.decode(JSONValue.self, from: Array(#"{"a":1,"a":2}"#.utf8)) == ["a": 1])
    }

    @Test func whitespaceIsAllowedBetweenTokens() throws {
        #expect(try JSONCoding.decode(JSONValue.self, from: Array(" \t\r\n{ \"a\" : [ 1 , true , null ] } \n".utf8)) == ["a": [1, true, nil]])
    }

    private func syntaxError(_ bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try JSONCoding.decode(JSONValue.self, from: bytes)
            return nil
        } catch DecodingError.dataCorrupted(let context) {
            return context.underlyingError as? JSONSyntaxError
        } catch {
            return nil
        }
    }

    private func codingPath<Value: Decodable>(of _: Value.Type, _ text: String) -> [String]? {
        do {
            _ = try JSONCoding.decode(Value.self, from: Array(text.utf8))
            return nil
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context),
                .keyNotFound(_, let context):
                return context.codingPath.map(\.stringValue)
            @unknown default:
                return nil
            }
        } catch {
            return nil
        }
    }
}
