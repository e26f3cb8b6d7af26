import ControlProtocol
import Foundation
import Testing

/// `EventRecord` keeps its kill figures out of line (the daemon holds 1,000 events) and so
/// writes its keys out: every key stays, `null` included, and a kill survives the trip.
@Suite struct EventRecordEncodingTests {
    @Test func everyKeyIsWrittenEvenWhenNil() throws {
        let event = EventRecord(sequence: 1, timeMs: 2, kind: .launch, message: "launched")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ControlCodec.line(event))) as? [String: Any])
        #expect(Set(object.keys) == ["sequence", "timeMs", "kind", "name", "reason", "message", "kill"])
        #expect(object["kill"] is NSNull && object["name"] is NSNull)
        #expect(try ControlCodec.decode(EventRecord.self, from: ControlCodec.line(event).dropLast()) == event)
    }

    @Test func aKillRecordRoundTripsAndCompares() throws {
        var kill = KillRecord(band: "idleExtension", triggerUs: 1, decisionUs: 2, signalUs: 3, emptyUs: 4)
        kill.rssBytes = 5 << 20
        kill.memoryRelease = "released"
        var event = EventRecord(sequence: 9, timeMs: 10, kind: .kill, name: "w", reason: "pressure", message: "killed", kill: kill)
        let decoded = try ControlCodec.decode(EventRecord.self, from: ControlCodec.line(event).dropLast())
        #expect(decoded == event && decoded.kill == kill)
        let copy = event
        kill.emptyUs = nil
        event.kill = kill
        #expect(copy.kill?.emptyUs == 4 && event.kill?.emptyUs == nil && copy != event)
        event.kill = nil
        #expect(event.kill == nil && event != copy)
    }
}
