import ControlProtocol
import Foundation
import Testing

/// `ProcessStatus` writes its keys out for speed (`status` encodes one per process); every
/// stored property must still appear, `null` included, as ``CompleteKeys`` promises.
@Suite struct StatusEncodingTests {
    @Test func everyStoredPropertyIsAKeyEvenWhenNil() throws {
        let status = ProcessStatus(name: "w", kind: .extension, state: "stopped")
        let properties = Set(Mirror(reflecting: status).children.compactMap(\.label))
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(status)) as? [String: Any])
        #expect(Set(object.keys) == properties)
        #expect(object["pid"] is NSNull)
        #expect(try JSONDecoder().decode(ProcessStatus.self, from: JSONEncoder().encode(status)) == status)
    }

    /// The daemon writes `status` answers entry by entry (``StatusAnswer``): byte for byte
    /// the generic encoder's line, every field set or not, texts that need escapes included.
    @Test func theWrittenAnswerIsTheEncodersLine() {
        var full = ProcessStatus(name: "demo.\"quoted\"\\widget\n", kind: .extension, state: "idle (disabled)")
        full.autostart = true
        full.pid = 4242
        full.uptimeMs = -3
        full.rssBytes = 0
        full.memoryCurrentBytes = UInt64.max
        full.memoryLimitBytes = 16 << 20
        full.lastResult = "newData"
        full.lastUpdateAgeMs = Int64.min
        full.updateLatencyP50Us = 120
        full.updateLatencyP99Us = Int64.max
        full.error = "exec: no such file; défaut \u{01}"
        full.visible = false
        var visible = ProcessStatus(name: "host", kind: .host, state: "running")
        visible.visible = true
        for entries in [[], [full], [ProcessStatus(name: "a", kind: .app, state: "stopped"), full, visible]] {
            var answer = StatusAnswer(expectedEntries: entries.count)
            for entry in entries { answer.append(entry) }
            #expect(answer.finish() == ControlCodec.answerLine(ControlResponse(status: entries)))
        }
    }

    @Test func aWrittenAnswerOverTheLimitIsTheSameError() throws {
        let name = String(repeating: "n", count: 4096)
        let entries = Array(repeating: ProcessStatus(name: name, kind: .extension, state: "idle"), count: ControlLimits.answerBytes / 4096 + 1)
        var answer = StatusAnswer(expectedEntries: entries.count)
        for entry in entries { answer.append(entry) }
        let bytes = answer.finish()
        #expect(bytes == ControlCodec.answerLine(ControlResponse(status: entries)))
        #expect(try ControlCodec.decode(ControlResponse.self, from: bytes.dropLast()).code == .tooLarge)
    }
}
