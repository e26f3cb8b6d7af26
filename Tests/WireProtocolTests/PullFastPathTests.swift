import ExtensiondTestSupport
import JSON
import Testing

@testable import HostProtocol

/// The `pull` fast path never disagrees with the general decoder: it either declines or
/// gives the same message.
@Suite struct PullFastPathTests {
    static func randomPull(_ random: inout SeededRandom) -> String {
        let names = ["com.example.weather.widget", "a", "ünïcødé.widget", "with space", "x\\\"y", ""]
        let space = [" ", "", "\t", "\r\n"].randomElement(using: &random)!
        // A type that is not quite `pull` one time in four.
        let type = Int.random(in: 0..<4, using: &random) == 0 ? ["pul", "pulls", "Pull", "list"].randomElement(using: &random)! : "pull"
        var fields = [
            #""type":\#(space)"\#(type)""#,
            #""id":\#(space)\#(UInt64.random(in: 0...(1 << 54), using: &random))"#,
            #""extension":"\#(names.randomElement(using: &random)!)""#,
            #""mode":"\#(["compact", "expanded", "huge"].randomElement(using: &random)!)""#,
            #""maxSize":{"width":\#(Int.random(in: -5...5000, using: &random)),\#(space)"height":\#(["120", "1.5", "1e3", "007", "0"].randomElement(using: &random)!)}"#,
        ]
        if Int.random(in: 0..<5, using: &random) == 0 { fields.append(#""extra":[1,{"a":null}]"#) }
        for _ in 0..<Int.random(in: 0...3, using: &random) { fields.append(randomOptionalField(&random)) }
        // Keys of the same length, or a prefix, of a pull's own, and a field twice.
        let nearMisses = [#""tYpe":"pull""#, #""ids":1"#, #""i":1"#, #""mode ":"compact""#, #""maxsize":{"width":1,"height":1}"#, #""extensioN":"a""#]
        if Int.random(in: 0..<6, using: &random) == 0 { fields.append(nearMisses.randomElement(using: &random)!) }
        if Int.random(in: 0..<8, using: &random) == 0 { fields.append(fields.randomElement(using: &random)!) }
        if Int.random(in: 0..<8, using: &random) == 0 { fields.removeLast() }
        fields.shuffle(using: &random)
        return space + "{" + fields.joined(separator: "," + space) + "}" + space
    }

    /// A pull's optional fields, each with values at, inside and past its bounds.
    static let optionalFields: [(key: String, values: [String])] = {
        let name = ["paris", "", "ünï", String(repeating: "n", count: 255), String(repeating: "n", count: 256), "pa\\u0072is", "tab\there"]
        return [
            ("wait", ["true", "false", "null", "1", "\"true\"", "tru", "falsey"]),
            ("instance", name.map { "\"\($0)\"" } + ["null", "7"]),
            ("place", name.map { "\"\($0)\"" } + ["null", "[]"]),
            ("colorScheme", ["\"light\"", "\"dark\"", "\"Dark\"", "\"dim\"", "\"\"", "null", "\"d\\u0061rk\""]),
            (
                "locale",
                [
                    "\"en\"", "\"zh-CN\"", "\"en_US\"", "\"\"", "\"e n\"", "\"ü\"", "\"e\\u006e\"", "null",
                    "\"\(String(repeating: "a", count: 64))\"", "\"\(String(repeating: "a", count: 65))\"",
                ]
            ),
            (
                "scale",
                [
                    "1", "2", "0.25", "16", "2.625", "1.100000023841858", "1E1", "1e-1", "0.2499999", "16.000001", "-0", "-1",
                    "1e400", "01", "1.", ".5", "\"2\"", "null", "2 ",
                ]
            ),
            ("params", ["{\"city\":\"Paris\"}", "null"]),
        ]
    }()

    static func randomOptionalField(_ random: inout SeededRandom) -> String {
        let field = optionalFields.randomElement(using: &random)!
        return "\"\(field.key)\":\(field.values.randomElement(using: &random)!)"
    }

    /// Every value of every optional field, first and last in an ordinary pull.
    @Test func everyOptionalValueAgreesWithTheGeneralDecoder() {
        let base = #""type":"pull","id":3,"extension":"a","mode":"compact","maxSize":{"width":320,"height":120}"#
        var taken = 0
        for field in Self.optionalFields {
            for value in field.values {
                for line in ["{\"\(field.key)\":\(value),\(base)}", "{\(base),\"\(field.key)\":\(value)}"] {
                    let bytes = Array(line.utf8)
                    let general = try? WireCoding.decodeLine(bytes, as: HostToSupervisor.self)
                    if let fast = PullFastPath.decode(bytes) {
                        taken += 1
                        #expect(general == .pull(fast), "\(line)")
                    }
                    #expect((try? HostToSupervisor.decode(line: bytes)) == general, "\(line)")
                }
            }
        }
        // wait 2, instance and place 4 each, colorScheme 2, locale 4, scale 8; both places.
        #expect(taken == 2 * 24)
    }

    @Test func agreesWithTheGeneralDecoder() {
        var random = SeededRandom(seed: 4)
        var fastCount = 0, optionalCount = 0
        for _ in 0..<8000 {
            var line = Array(Self.randomPull(&random).utf8)
            if Int.random(in: 0..<10, using: &random) == 0, !line.isEmpty {
                line[Int.random(in: 0..<line.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            let general = try? WireCoding.decodeLine(line, as: HostToSupervisor.self)
            if let fast = PullFastPath.decode(line) {
                fastCount += 1
                if fast.wait != nil || fast.instance != nil || fast.place != nil || !fast.environment.isEmpty { optionalCount += 1 }
                #expect(general == .pull(fast), "\(String(decoding: line, as: UTF8.self))")
            }
            #expect((try? HostToSupervisor.decode(line: line)) == general)
        }
        // The fast path is actually taken for ordinary pulls, with optional fields too.
        #expect(fastCount > 100)
        #expect(optionalCount > 25)
    }

    /// A repeated key after a value the fast path could not take (an unknown mode, an id
    /// past the maximum, another type) is not read as the only one: the line is declined.
    @Test func aValueItCannotTakeIsNotReplacedByARepeatedKey() {
        let size = #""maxSize":{"width":320,"height":120}"#
        for line in [
            #"{"type":"pull","id":1,"extension":"a","mode":"huge","mode":"compact",\#(size)}"#,
            #"{"type":"list","type":"pull","id":1,"extension":"a","mode":"compact",\#(size)}"#,
            #"{"type":"pull","id":9007199254740992,"id":1,"extension":"a","mode":"compact",\#(size)}"#,
            #"{"type":"pull","id":1,"extension":"a","mode":"compact","maxSize":{"width":4294967296,"width":1,"height":1}}"#,
        ] {
            let bytes = Array(line.utf8)
            #expect(PullFastPath.decode(bytes) == nil, "\(line)")
            #expect((try? HostToSupervisor.decode(line: bytes)) == (try? WireCoding.decodeLine(bytes, as: HostToSupervisor.self)))
        }
    }

    /// Pulls in the order hosts write their fields (the template the fast path matches
    /// first), every value at and past its extremes, some with a byte changed.
    static func randomWrittenPull(_ random: inout SeededRandom) -> String {
        // The first value, a usual one, half the time.
        func pick(_ values: [String]) -> String { Bool.random(using: &random) ? values[0] : values.randomElement(using: &random)! }
        let id = pick(["0", "1", "42", "\(RequestID.maximum)", "\(RequestID.maximum + 1)", "18446744073709551616", "-1", "01", "1.0", "1e2", " 7"])
        let name = pick(["com.example.weather.widget", "a", "", "ünïcødé.widget", "x\\\"y", "tab\there"])
        let mode = pick(["compact", "expanded", "Compact", "compac", "expandedd", "", "comp\\u0061ct"])
        let side = ["0", "1", "320", "\(Int32.max)", "\(UInt64(Int32.max) + 1)", "-1", "007", "1.5"]
        let (width, height) = (pick(side), pick(side))
        let end = pick([
            "}}", "}}", "}} ", "},\"wait\":true}", "}}}", "} }", "},\"scale\":2,\"colorScheme\":\"dark\"}", "},\"id\":1}", "},}",
            "},\"params\":{}}", "} ,\"wait\":false}", "},\"locale\":\"en\",\"locale\":\"fr\"}",
        ])
        return #"{"type":"pull","id":\#(id),"extension":"\#(name)","mode":"\#(mode)","maxSize":{"width":\#(width),"height":\#(height)\#(end)"#
    }

    @Test func theWrittenOrderAgreesWithTheGeneralDecoder() {
        var random = SeededRandom(seed: 11)
        var matched = 0
        for _ in 0..<8000 {
            var line = Array(Self.randomWrittenPull(&random).utf8)
            if Int.random(in: 0..<8, using: &random) == 0 {
                line[Int.random(in: 0..<line.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            let general = try? WireCoding.decodeLine(line, as: HostToSupervisor.self)
            let written = line.withUnsafeBufferPointer { bytes in
                var scanner = JSONScanner(bytes)
                return scanner.writtenPull()
            }
            if let written {
                matched += 1
                #expect(general == .pull(written), "\(String(decoding: line, as: UTF8.self))")
            }
            #expect((try? HostToSupervisor.decode(line: line)) == general, "\(String(decoding: line, as: UTF8.self))")
        }
        // The template is actually matched by ordinary pulls.
        #expect(matched > 500)
    }

    @Test func everyModeIsReadWithoutAString() {
        for mode in DisplayMode.allCases {
            #expect(
                mode.rawValue.utf8CString.withUnsafeBufferPointer { name in
                    name.withMemoryRebound(to: UInt8.self) { DisplayMode(written: JSONScannedKey(bytes: .init(rebasing: $0.dropLast()))) }
                } == mode)
        }
    }

    /// What the Today view sends (relayed with its keys sorted) and a waiting pull.
    @Test func pullsWithOptionalFieldsTakeTheFastPath() {
        let today =
            #"{"colorScheme":"dark","extension":"com.example.demo.widget","id":7,"instance":"paris","locale":"en-GB","#
            + #""maxSize":{"height":120,"width":320},"mode":"compact","place":"today","scale":2.5,"type":"pull"}"#
        #expect(
            PullFastPath.decode(Array(today.utf8))
                == .init(
                    id: 7, extensionID: "com.example.demo.widget", mode: .compact, maxSize: .init(width: 320, height: 120),
                    instance: "paris", place: "today", environment: .init(colorScheme: .dark, locale: "en-GB", scale: 2.5)))
        let waiting = #"{"type":"pull","id":2,"extension":"a","mode":"expanded","maxSize":{"width":1,"height":2},"wait":true}"#
        #expect(PullFastPath.decode(Array(waiting.utf8)) == .init(id: 2, extensionID: "a", mode: .expanded, maxSize: .init(width: 1, height: 2), wait: true))
        // In the written order, the optional fields after the template are read with it.
        let written = Array(waiting.utf8).withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            return scanner.writtenPull()
        }
        #expect(written?.wait == true)
    }

    @Test func typicalPullTakesTheFastPath() {
        let line = #"{"type":"pull","id":2,"extension":"com.example.demo.widget","mode":"compact","maxSize":{"width":320,"height":120}}"#
        #expect(
            PullFastPath.decode(Array(line.utf8))
                == .init(id: 2, extensionID: "com.example.demo.widget", mode: .compact, maxSize: .init(width: 320, height: 120)))
    }
}
