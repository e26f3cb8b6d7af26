import Testing
import WireProtocol

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Parses JSON text into a tree, so that messages can be compared independently of key order.
func jsonTree(_ text: some Collection<UInt8>) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(text))
}

func jsonTree(_ text: String) throws -> JSONValue {
    try jsonTree(Array(text.utf8))
}

/// Checks that `message` encodes to exactly the fields of `literal` and that `literal`
/// decodes to `message`.
func expectWire<Message: WireMessageGroup>(
    _ message: Message, _ literal: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let line = message.encodedLine()
    #expect(line.last == UInt8(ascii: "\n"), sourceLocation: sourceLocation)
    #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false, sourceLocation: sourceLocation)
    #expect(try jsonTree(line.dropLast()) == jsonTree(literal), sourceLocation: sourceLocation)
    #expect(try Message.decode(line: Array(literal.utf8)) == message, sourceLocation: sourceLocation)
}

/// The error decoding `literal` as `Message` throws, or `nil` if it decodes.
func decodingError<Message: WireMessageGroup>(_ literal: String, as _: Message.Type) -> ProtocolError? {
    do {
        _ = try Message.decode(line: Array(literal.utf8))
        return nil
    } catch {
        return error
    }
}
