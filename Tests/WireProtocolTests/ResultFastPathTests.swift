import ExtensiondTestSupport
import Testing

@testable import WireProtocol

/// The `result` fast path never disagrees with the general decoder: it either declines or
/// gives the same message; errors come from the general decoder.
@Suite struct ResultFastPathTests {
    static func randomResult(_ random: inout SeededRandom) -> String {
        let space = [" ", "", "\t"].randomElement(using: &random)!
        var fields = [
            #""type":\#(space)"\#(["result", "result", "ready"].randomElement(using: &random)!)""#,
            #""id":\#(space)\#(["7", "0", "9007199254740991", "9007199254740992", "1.0", "-1", "\"3\""].randomElement(using: &random)!)"#,
            #""result":"\#(["newData", "newData", "noData", "failed", "maybe"].randomElement(using: &random)!)""#,
        ]
        let optional = [
            #""snapshot":\#([#"{"t":"12:00","n":[1,2.5,null]}"#, "null", "[]", #""x\u00e9""#, "1e400"].randomElement(using: &random)!)"#,
            #""reload":\#([#""atEnd""#, #""never""#, #""soon""#, #"{"after":"2026-11-22T08:00:00Z"}"#, #"{"after":"tomorrow"}"#, "null", #"{"after":"2026-11-22T08:00:00Z","x":1}"#].randomElement(using: &random)!)"#,
            #""error":\#([#""boom""#, "null", "3"].randomElement(using: &random)!)"#,
            #""preferredSize":\#([#"{"width":300,"height":100}"#, #"{"height":1,"width":2}"#, #"{"width":70000,"height":1}"#, #"{"width":1}"#, "null", #"{"width":1.0,"height":2}"#].randomElement(using: &random)!)"#,
            #""timeline":[{"date":"2026-11-22T08:00:00Z","snapshot":{}}]"#,
            #""extra":{"a":[true]}"#,
            #""extra":1"#,  // an unknown field twice: ignored, as by the general decoder
            #""id":8"#,
        ]
        for field in optional where Int.random(in: 0..<3, using: &random) == 0 { fields.append(field) }
        if Int.random(in: 0..<8, using: &random) == 0 { fields.removeFirst() }
        fields.shuffle(using: &random)
        return "{" + fields.joined(separator: "," + space) + "}"
    }

    /// The fast path's result, checked against the general decoder's: the same message,
    /// and the snapshot's bytes those the daemon would have written from the tree.
    @discardableResult
    static func check(_ line: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> ExtensionToSupervisor.Result? {
        let text = String(decoding: line, as: UTF8.self)
        let general = Result { () throws(ProtocolError) in try WireCoding.decodeLine(line, as: ExtensionToSupervisor.self) }
        let fast = ResultFastPath.result(from: line)
        if let fast {
            guard case .success(.result(let expected)) = general else {
                Issue.record("fast path took \(text), the general decoder \(general)", sourceLocation: sourceLocation)
                return fast
            }
            #expect(fast == expected, "\(text)", sourceLocation: sourceLocation)
            #expect(fast.encodedSnapshot?.bytes == expected.snapshot?.encoded().bytes, "\(text)", sourceLocation: sourceLocation)
        }
        let decoded = Result { () throws(ProtocolError) in try ExtensionToSupervisor.decode(line: line) }
        switch (decoded, general) {
        case (.success(let message), .success(let expected)): #expect(message == expected, sourceLocation: sourceLocation)
        case (.failure(let error), .failure(let expected)): #expect(error == expected, sourceLocation: sourceLocation)
        default: Issue.record("\(decoded) but \(general): \(text)", sourceLocation: sourceLocation)
        }
        return fast
    }

    @Test func agreesWithTheGeneralDecoder() {
        var random = SeededRandom(seed: 9)
        var fastCount = 0
        for _ in 0..<5000 {
            if Self.check(Array(Self.randomResult(&random).utf8)) != nil { fastCount += 1 }
        }
        #expect(fastCount > 100)
    }

    /// Random snapshots as other writers write them (members in any order, escapes,
    /// numbers in every notation, extremes): taken in written form, or left to the tree.
    @Test func randomSnapshotsAreTheBytesTheTreeWrites() {
        var random = SeededRandom(seed: 17)
        var fastCount = 0
        for _ in 0..<4000 {
            var fields = [
                Array(#""type":"result""#.utf8), Array(#""id":7"#.utf8), Array(#""result":"newData""#.utf8),
                Array(#""snapshot":"#.utf8) + RandomJSONText.value(depth: 4, using: &random),
            ]
            fields.shuffle(using: &random)
            let line = [UInt8(ascii: "{")] + fields.joined(separator: [UInt8(ascii: ",")]) + [UInt8(ascii: "}")]
            if Self.check(line) != nil { fastCount += 1 }
        }
        #expect(fastCount > 2000)
    }

    @Test func typicalResultTakesTheFastPath() {
        let line = #"{"type":"result","id":7,"result":"newData","snapshot":{"time":"12:00","a":[1,2.50]},"reload":"atEnd"}"#
        let result = ResultFastPath.result(from: Array(line.utf8))
        #expect(result == .init(id: 7, result: .newData, snapshot: ["time": "12:00", "a": [1, 2.5]], reload: .atEnd))
        #expect(result?.encodedSnapshot?.bytes == Array(#"{"a":[1,2.5],"time":"12:00"}"#.utf8))
        #expect(result?.snapshotToCheck == nil)
    }

    /// A card's shape is checked on its tree: the general decoder takes it.
    @Test func cardsTakeTheGeneralDecoder() {
        let cards = [
            #"{"type":"AdaptiveCard","body":[]}"#, #"{"body":[{"type":"TextBlock","text":"AdaptiveCard"}]}"#,
            // Escaped, the name must still send the card to its check.
            #"{"type":"Adaptive\u0043ard","body":[]}"#, #"{"typ\u0065":"AdaptiveCard","body":[]}"#,
        ]
        for snapshot in cards {
            let line = Array(#"{"type":"result","id":7,"result":"newData","snapshot":\#(snapshot)}"#.utf8)
            #expect(ResultFastPath.result(from: line) == nil)
            #expect(Self.check(line) == nil)
            guard case .result(let result) = try? ExtensionToSupervisor.decode(line: line) else {
                Issue.record("not decoded: \(snapshot)")
                continue
            }
            #expect(result.snapshotToCheck != nil)
        }
    }
}
