import HostProtocol
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every line of the example session in docs/PROTOCOL.md decodes as a message of its
/// direction and encodes back to the same JSON, so the document and the code agree.
@Suite struct ProtocolDocumentTests {
    struct SessionLine {
        var direction: String
        var json: String
    }

    static func exampleSession() throws -> [SessionLine] {
        let documentPath = URL(filePath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "docs/PROTOCOL.md")
        let document = String(decoding: try Data(contentsOf: documentPath), as: UTF8.self)
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
        let heading = try #require(lines.firstIndex(of: "## 4. Example session"))
        let blockStart = try #require(lines[heading...].firstIndex(of: "```text")) + 1
        let blockEnd = try #require(lines[blockStart...].firstIndex(of: "```"))
        return try lines[blockStart..<blockEnd].map { line in
            let brace = try #require(line.firstIndex(of: "{"), "no JSON in \(line)")
            let direction = line[..<brace].split(separator: " ").joined(separator: " ")
            return SessionLine(direction: direction, json: String(line[brace...]))
        }
    }

    @Test func everyExampleLineRoundTrips() throws {
        let session = try Self.exampleSession()
        #expect(session.count > 30)
        var types: Set<String> = []
        for (index, line) in session.enumerated() {
            let bytes = Array(line.json.utf8)
            let encoded: [UInt8]
            switch line.direction {
            case "ext → sup": encoded = try ExtensionToSupervisor.decode(line: bytes).encodedLine()
            case "sup → ext": encoded = try SupervisorToExtension.decode(line: bytes).encodedLine()
            case "sup → host", "sup → app": encoded = try SupervisorToHost.decode(line: bytes).encodedLine()
            case "app → sup": encoded = try HostToSupervisor.decode(line: bytes).encodedLine()
            case "host → sup":
                do {
                    encoded = try HostToSupervisor.decode(line: bytes).encodedLine()
                } catch {
                    // A documented unknown type or violation: the next line is the supervisor's
                    // error about it, with the request's id only for an unknown type.
                    let next = try #require(session.dropFirst(index + 1).first)
                    let id: RequestID? = if case .unknownType = error { HostToSupervisor.requestID(ofUnknown: bytes) } else { nil }
                    #expect(
                        try SupervisorToHost.decode(line: Array(next.json.utf8))
                            == .error(.init(id: id, error: error.description)))
                    continue
                }
            default:
                Issue.record("unknown direction \(line.direction)")
                continue
            }
            #expect(try jsonTree(encoded.dropLast()) == jsonTree(line.json), "line \(index + 1)")
            if case .object(let fields) = try jsonTree(line.json), let type = fields["type"]?.stringValue {
                types.insert("\(line.direction) \(type)")
            }
        }
        // The session shows every message of both tables (the app's and the gallery's as well).
        #expect(types.count == 41, "\(types.sorted())")
    }
}
