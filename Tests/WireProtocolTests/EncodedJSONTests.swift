import HostProtocol
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@Suite struct EncodedJSONTests {
    @Test func snapshotLineEmbedsThePreEncodedBytesVerbatim() {
        let payload = EncodedJSON(trustedBytes: Array(#"{"z":1,   "a":[true]}"#.utf8))
        let line = SupervisorToHost.snapshot(
            .init(id: 7, extensionID: "e", result: .cached, snapshot: payload, version: 1, ageMs: 5, stale: false)
        ).encodedLine()
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"type":"snapshot","id":7,"extension":"e","result":"cached","snapshot":{"z":1,   "a":[true]},"version":1,"ageMs":5,"stale":false}"#
                + "\n")
    }

    @Test func snapshotCodableEncodingMatchesTheFastLine() throws {
        let snapshot = SupervisorToHost.Snapshot(
            id: nil, extensionID: "w", result: .newData, snapshot: (["k": [1.5, "v"]] as JSONValue).encoded(), version: 9,
            ageMs: 0, stale: false, error: "e")
        guard case .object(var fast) = try jsonTree(SupervisorToHost.snapshot(snapshot).encodedLine().dropLast())
        else {
            Issue.record("not an object")
            return
        }
        fast["type"] = nil
        #expect(try jsonTree(Array(JSONEncoder().encode(snapshot))) == .object(fast))
    }

    @Test func jsonValuesRoundTrip() throws {
        let value: JSONValue = ["a": [1, 2.5, -3e10, true, false, nil, "ü\n"], "b": [:], "c": []]
        #expect(try value.encoded().decoded() == value)
        #expect(try JSONValue(encoding: ["x": 1]) == ["x": 1])
        #expect(try JSONValue.array([.number(.nan), .number(-.infinity)]).encoded().decoded() == [nil, nil])
        #expect(JSONValue.number(42).intValue == 42)
        #expect(JSONValue.number(4.2).intValue == nil)
        #expect(throws: ProtocolError.self) { try EncodedJSON(trustedBytes: Array("{".utf8)).decoded() }
    }

    @Test func groupContainersRoundTrip() {
        let containers = ["group.a": "/var/lib/extensiond/groups/group.a", "group.b": "/b"]
        let text = ExtensionEnvironment.encodeGroupContainers(containers)
        #expect(text == "group.a=/var/lib/extensiond/groups/group.a:group.b=/b")
        #expect(ExtensionEnvironment.decodeGroupContainers(text) == containers)
        #expect(ExtensionEnvironment.decodeGroupContainers("") == [:])
        #expect(ExtensionEnvironment.decodeGroupContainers("junk:=x:y=:g=/p=q") == ["g": "/p=q"])
    }
}
