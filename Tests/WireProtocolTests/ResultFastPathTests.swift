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

    @Test func agreesWithTheGeneralDecoder() throws {
        var random = SeededRandom(seed: 9)
        var fastCount = 0
        for _ in 0..<5000 {
            let line = Array(Self.randomResult(&random).utf8)
            let general = Result { () throws(ProtocolError) in try WireCoding.decodeLine(line, as: ExtensionToSupervisor.self) }
            if let fast = ResultFastPath.result(from: try WireCoding.parseLine(line)) {
                fastCount += 1
                #expect(try general.get() == .result(fast), "\(String(decoding: line, as: UTF8.self))")
            }
            let decoded = Result { () throws(ProtocolError) in try ExtensionToSupervisor.decode(line: line) }
            switch (decoded, general) {
            case (.success(let message), .success(let expected)): #expect(message == expected)
            case (.failure(let error), .failure(let expected)): #expect(error == expected)
            default: Issue.record("\(decoded) but \(general): \(String(decoding: line, as: UTF8.self))")
            }
        }
        #expect(fastCount > 100)
    }

    @Test func typicalResultTakesTheFastPath() throws {
        let line = #"{"type":"result","id":7,"result":"newData","snapshot":{"time":"12:00"},"reload":"atEnd"}"#
        #expect(
            ResultFastPath.result(from: try WireCoding.parseLine(Array(line.utf8)))
                == .init(id: 7, result: .newData, snapshot: ["time": "12:00"], reload: .atEnd))
    }
}
