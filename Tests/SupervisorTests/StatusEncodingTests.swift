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
}
