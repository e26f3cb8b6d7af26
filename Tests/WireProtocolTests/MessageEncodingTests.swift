import HostProtocol
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every message type against its literal JSON, field names exactly as in docs/PROTOCOL.md.
@Suite struct MessageEncodingTests {
    let size = Size(width: 320, height: 120)

    @Test func extensionToSupervisor() throws {
        try expectWire(ExtensionToSupervisor.ready(.init()), #"{"type":"ready","protocol":1}"#)
        try expectWire(
            ExtensionToSupervisor.result(.init(id: 1, result: .newData, snapshot: ["n": 1], reload: .atEnd)),
            #"{"type":"result","id":1,"result":"newData","snapshot":{"n":1},"reload":"atEnd"}"#)
        try expectWire(
            ExtensionToSupervisor.result(.init(id: 2, result: .noData, reload: .never)),
            #"{"type":"result","id":2,"result":"noData","reload":"never"}"#)
        try expectWire(
            ExtensionToSupervisor.result(
                .init(id: 3, result: .noData, reload: .after(UnixTime(secondsSince1970: 1_795_334_400)))),
            #"{"type":"result","id":3,"result":"noData","reload":{"after":"2026-11-22T08:00:00Z"}}"#)
        try expectWire(
            ExtensionToSupervisor.result(.init(id: 4, result: .failed, error: "offline")),
            #"{"type":"result","id":4,"result":"failed","error":"offline"}"#)
        try expectWire(
            ExtensionToSupervisor.result(.init(id: 9, result: .newData, snapshot: ["n": 2], preferredSize: size)),
            #"{"type":"result","id":9,"result":"newData","snapshot":{"n":2},"preferredSize":{"width":320,"height":120}}"#)
        try expectWire(
            ExtensionToSupervisor.complete(.init(id: 5, items: [Item(type: "public.text", value: "hi")])),
            #"{"type":"complete","id":5,"items":[{"type":"public.text","value":"hi"}]}"#)
        try expectWire(
            ExtensionToSupervisor.openURL(.init(id: 6, url: "demo://x/y")),
            #"{"type":"openURL","id":6,"url":"demo://x/y"}"#)
        try expectWire(
            ExtensionToSupervisor.setHasContent(.init(value: false)), #"{"type":"setHasContent","value":false}"#)
        try expectWire(
            ExtensionToSupervisor.defaults(.init(id: 7, group: "g", op: .set, key: "k", value: [1, "two", nil])),
            #"{"type":"defaults","id":7,"group":"g","op":"set","key":"k","value":[1,"two",null]}"#)
        try expectWire(
            ExtensionToSupervisor.defaults(.init(id: 8, group: "g", op: .list)),
            #"{"type":"defaults","id":8,"group":"g","op":"list"}"#)
    }

    @Test func supervisorToExtension() throws {
        try expectWire(
            SupervisorToExtension.update(.init(id: 1, mode: .expanded, maxSize: size, reason: .schedule)),
            #"{"type":"update","id":1,"mode":"expanded","maxSize":{"width":320,"height":120},"reason":"schedule"}"#)
        try expectWire(
            SupervisorToExtension.begin(.init(id: 2, items: [Item(type: "public.image", path: "/tmp/a.png")])),
            #"{"type":"begin","id":2,"items":[{"type":"public.image","path":"/tmp/a.png"}]}"#)
        try expectWire(
            SupervisorToExtension.openURLResult(.init(id: 3, success: true)),
            #"{"type":"openURLResult","id":3,"success":true}"#)
        try expectWire(
            SupervisorToExtension.defaultsResult(.init(id: 4, outcome: .value(.null))),
            #"{"type":"defaultsResult","id":4,"value":null}"#)
        try expectWire(
            SupervisorToExtension.defaultsResult(.init(id: 5, outcome: .error("no such group"))),
            #"{"type":"defaultsResult","id":5,"error":"no such group"}"#)
        try expectWire(
            SupervisorToExtension.memoryWarning(.init(current: 20_971_521, high: 20_971_520)),
            #"{"type":"memoryWarning","current":20971521,"high":20971520}"#)
        try expectWire(SupervisorToExtension.terminate, #"{"type":"terminate"}"#)
    }

    @Test func hostToSupervisor() throws {
        try expectWire(HostToSupervisor.list(.init()), #"{"type":"list"}"#)
        try expectWire(HostToSupervisor.list(.init(id: 9)), #"{"type":"list","id":9}"#)
        try expectWire(
            HostToSupervisor.pull(.init(id: 1, extensionID: "a.b", mode: .compact, maxSize: size)),
            #"{"type":"pull","id":1,"extension":"a.b","mode":"compact","maxSize":{"width":320,"height":120}}"#)
        try expectWire(
            HostToSupervisor.subscribe(.init(extensions: ["a.b", "c.d"])),
            #"{"type":"subscribe","extensions":["a.b","c.d"]}"#)
        try expectWire(
            HostToSupervisor.perform(.init(id: 2, extensionID: "x", items: [Item(type: "t", path: "/p")])),
            #"{"type":"perform","id":2,"extension":"x","items":[{"type":"t","path":"/p"}]}"#)
    }

    @Test func instances() throws {
        try expectWire(
            HostToSupervisor.pull(.init(id: 2, extensionID: "w", mode: .compact, maxSize: size, instance: "oslo", params: ["city": "Oslo"])),
            #"{"type":"pull","id":2,"extension":"w","mode":"compact","maxSize":{"width":320,"height":120},"instance":"oslo","params":{"city":"Oslo"}}"#)
        try expectWire(
            SupervisorToExtension.update(.init(id: 3, mode: .compact, maxSize: size, reason: .pull, instance: "oslo", params: ["city": "Oslo"])),
            #"{"type":"update","id":3,"mode":"compact","maxSize":{"width":320,"height":120},"reason":"pull","instance":"oslo","params":{"city":"Oslo"}}"#)
        try expectWire(
            HostToSupervisor.subscribe(.init(extensions: ["w"], instance: "oslo", params: ["city": "Oslo"])),
            #"{"type":"subscribe","extensions":["w"],"instance":"oslo","params":{"city":"Oslo"}}"#)
        let big = String(repeating: "x", count: 5000)
        let tooBig = #"{"type":"pull","id":1,"extension":"w","mode":"compact","maxSize":{"width":1,"height":1},"params":""# + big + #""}"#
        let error = #expect(throws: ProtocolError.self) { try HostToSupervisor.decode(line: Array(tooBig.utf8)) }
        #expect(error.map { "\($0)".contains("params") } == true)
    }

    @Test func timeline() throws {
        let entries = [
            TimelineEntry(date: UnixTime(secondsSince1970: 1_795_334_400), snapshot: ["n": 3]),
            TimelineEntry(date: UnixTime(secondsSince1970: 1_795_334_401.5), snapshot: ["n": 4]),
        ]
        try expectWire(
            ExtensionToSupervisor.result(.init(id: 1, result: .newData, snapshot: ["n": 2], timeline: entries)),
            #"{"type":"result","id":1,"result":"newData","snapshot":{"n":2},"timeline":[{"date":"2026-11-22T08:00:00Z","snapshot":{"n":3}},{"date":"2026-11-22T08:00:01.500Z","snapshot":{"n":4}}]}"#
        )
        func refusal(_ fields: String) -> String? {
            let line = #"{"type":"result","id":1,"# + fields + "}"
            do {
                _ = try ExtensionToSupervisor.decode(line: Array(line.utf8))
                return nil
            } catch {
                return error.description
            }
        }
        let date = { (second: Int) in
            RFC3339.string(from: UnixTime(secondsSince1970: 1_795_334_400 + Double(second)))
        }
        let entry = { (second: Int) in #"{"date":""# + date(second) + #"","snapshot":1}"# }
        #expect(refusal(#""result":"newData","snapshot":1,"timeline":["# + entry(2) + "," + entry(1) + "]")?.contains("dates must ascend") == true)
        #expect(refusal(#""result":"newData","snapshot":1,"timeline":["# + entry(1) + "," + entry(1) + "]")?.contains("dates must ascend") == true)
        let tooMany = (0..<257).map(entry).joined(separator: ",")
        #expect(refusal(#""result":"newData","snapshot":1,"timeline":["# + tooMany + "]")?.contains("more than 256 entries") == true)
        #expect(refusal(#""result":"noData","timeline":[]"#)?.contains("allowed with newData only") == true)
        #expect(refusal(#""result":"newData","snapshot":1,"timeline":[{"date":"tomorrow","snapshot":1}]"#)?.contains("RFC 3339") == true)
        #expect(refusal(#""result":"newData","snapshot":1,"timeline":{"date":"2026-11-22T08:00:00Z"}"#) != nil)
    }

    @Test func visible() throws {
        try expectWire(
            HostToSupervisor.visible(.init(extensions: [.init(extensionID: "w"), .init(extensionID: "w", instance: "oslo")], visible: false)),
            #"{"type":"visible","extensions":[{"extension":"w"},{"extension":"w","instance":"oslo"}],"visible":false}"#)
        let tooMany = #"{"type":"visible","visible":true,"extensions":["# + Array(repeating: #"{"extension":"w"}"#, count: 257).joined(separator: ",") + "]}"
        let error = #expect(throws: ProtocolError.self) { try HostToSupervisor.decode(line: Array(tooMany.utf8)) }
        #expect(error.map { "\($0)".contains("more than 256 extensions") } == true, "\(String(describing: error))")
        #expect(throws: ProtocolError.self) {
            try HostToSupervisor.decode(line: Array(#"{"type":"visible","extensions":[{"extension":1}],"visible":true}"#.utf8))
        }
        #expect(throws: ProtocolError.self) {
            try HostToSupervisor.decode(line: Array(#"{"type":"visible","extensions":[],"visible":"yes"}"#.utf8))
        }
    }

    @Test func supervisorToHost() throws {
        try expectWire(
            SupervisorToHost.extensions(
                .init(id: 1, extensions: [.init(id: "e", app: "a", point: "widget", enabled: true, hasContent: false)])),
            #"{"type":"extensions","id":1,"extensions":[{"id":"e","app":"a","point":"widget","enabled":true,"hasContent":false}]}"#
        )
        try expectWire(
            SupervisorToHost.snapshot(
                .init(
                    id: 2, extensionID: "e", result: .cached, snapshot: (["t": "x"] as JSONValue).encoded(), version: 3,
                    ageMs: 1200, stale: true, error: "boom")),
            #"{"type":"snapshot","id":2,"extension":"e","result":"cached","snapshot":{"t":"x"},"version":3,"ageMs":1200,"stale":true,"error":"boom"}"#
        )
        try expectWire(
            SupervisorToHost.snapshot(
                .init(id: nil, extensionID: "e", result: .failed, snapshot: nil, version: 0, ageMs: 0, stale: true)),
            #"{"type":"snapshot","extension":"e","result":"failed","snapshot":null,"version":0,"ageMs":0,"stale":true}"#)
        try expectWire(
            SupervisorToHost.snapshot(
                .init(
                    id: nil, extensionID: "e", result: .newData, snapshot: (["t": "y"] as JSONValue).encoded(), version: 1,
                    ageMs: 0, stale: false, mode: .expanded, preferredSize: size)),
            #"{"type":"snapshot","extension":"e","result":"newData","snapshot":{"t":"y"},"version":1,"ageMs":0,"stale":false,"mode":"expanded","preferredSize":{"width":320,"height":120}}"#
        )
        try expectWire(
            SupervisorToHost.extensions(
                .init(id: nil, extensions: [.init(id: "w", app: "a", point: "widget", enabled: true, hasContent: true, modes: [.compact])])),
            #"{"type":"extensions","extensions":[{"id":"w","app":"a","point":"widget","enabled":true,"hasContent":true,"modes":["compact"]}]}"#)
        try expectWire(
            SupervisorToHost.completed(.init(id: 4, items: [])), #"{"type":"completed","id":4,"items":[]}"#)
        try expectWire(
            SupervisorToHost.extensionTerminated(.init(extensionID: "e", reason: .protocol)),
            #"{"type":"extensionTerminated","extension":"e","reason":"protocol"}"#)
        try expectWire(
            SupervisorToHost.openURL(.init(url: "demo://x", app: "a")), #"{"type":"openURL","url":"demo://x","app":"a"}"#)
        try expectWire(SupervisorToHost.error(.init(id: nil, error: "bad")), #"{"type":"error","error":"bad"}"#)
        try expectWire(SupervisorToHost.error(.init(id: 5, error: "bad")), #"{"type":"error","id":5,"error":"bad"}"#)
    }

    @Test func unknownFieldsAreIgnoredAndReasonsAreAnOpenSet() throws {
        #expect(
            try HostToSupervisor.decode(line: Array(#"{"type":"list","future":[1,2]}"#.utf8)) == .list(.init()))
        let terminated = try SupervisorToHost.decode(
            line: Array(#"{"type":"extensionTerminated","extension":"e","reason":"cosmic ray"}"#.utf8))
        #expect(terminated == .extensionTerminated(.init(extensionID: "e", reason: .init(rawValue: "cosmic ray"))))
    }

    @Test(arguments: [
        (#""preferredSize":{"width":-1,"height":10}"#, "preferredSize"),
        (#""preferredSize":{"width":70000,"height":10}"#, "preferredSize"),
        (#""preferredSize":"big""#, "preferredSize"),
    ])
    func badPreferredSizesAreRefusedByName(field: String, named: String) throws {
        let line = #"{"type":"result","id":1,"result":"newData","snapshot":{},"# + field + "}"
        let error = #expect(throws: ProtocolError.self) { try ExtensionToSupervisor.decode(line: Array(line.utf8)) }
        #expect(error.map { "\($0)".contains(named) } == true, "\(String(describing: error))")
    }

    @Test func stringsWithControlCharactersStayOnOneLine() throws {
        let awkward = "a\"b\\c\nd\r\te\u{1}f/ü😀"
        let snapshot = SupervisorToHost.snapshot(
            .init(
                id: 1, extensionID: awkward, result: .newData, snapshot: JSONValue.string(awkward).encoded(),
                version: 1, ageMs: 0, stale: false, error: awkward))
        let line = snapshot.encodedLine()
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        #expect(try SupervisorToHost.decode(line: line.dropLast()) == snapshot)
    }
}
