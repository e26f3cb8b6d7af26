import WireProtocol

/// What a page may send to the daemon: one JSON object whose `type` a host page needs.
/// Apps' messages (`defaults`, `reloadExtensions`, …) are not relayed.
enum PageMessage {
    static let relayedTypes: Set<String> = ["list", "pull", "subscribe", "visible", "open", "execute"]

    static func check(_ body: [UInt8]) -> Result<Void, Failure> {
        guard !body.contains(UInt8(ascii: "\n")) else { return .failure(Failure("a message is one line of JSON")) }
        guard case .object(let fields)? = try? EncodedJSON(trustedBytes: body).decoded() else {
            return .failure(Failure("not a JSON object"))
        }
        guard case .string(let type)? = fields["type"], relayedTypes.contains(type) else {
            return .failure(Failure("a page sends only \(relayedTypes.sorted().joined(separator: ", "))"))
        }
        return .success(())
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
