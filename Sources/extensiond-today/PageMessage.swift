import WireProtocol

/// What a page may send to the daemon: one JSON object whose `type` a host page needs, the
/// edit mode's managing requests included (the daemon refuses them unless the Today view has
/// `manage = true`), or an array of such objects sent in one request (a page load's
/// subscriptions and pulls). Apps' messages (`defaults`, `reloadExtensions`, …) are not relayed.
enum PageMessage {
    static let relayedTypes: Set<String> = [
        "list", "pull", "subscribe", "visible", "open", "execute", "enable", "addInstance", "removeInstance", "arrange",
    ]
    /// The most messages one request may carry.
    static let maxBatch = 256

    /// The messages of `body`, in order, each as the one line the daemon gets.
    static func lines(of body: [UInt8]) -> Result<[[UInt8]], Failure> {
        guard !body.contains(UInt8(ascii: "\n")) else { return .failure(Failure("a message is one line of JSON")) }
        switch try? EncodedJSON(trustedBytes: body).decoded() {
        case .object(let fields)?:
            return check(fields).map { [body] }
        case .array(let messages)? where (1...maxBatch).contains(messages.count):
            var lines: [[UInt8]] = []
            for (index, message) in messages.enumerated() {
                guard case .object(let fields) = message else { return .failure(Failure("message \(index): not a JSON object")) }
                if case .failure(let failure) = check(fields) { return .failure(Failure("message \(index): \(failure)")) }
                lines.append(message.encoded().bytes)
            }
            return .success(lines)
        case .array?:
            return .failure(Failure("an array holds 1 to \(maxBatch) messages"))
        default:
            return .failure(Failure("not a JSON object or an array of them"))
        }
    }

    private static func check(_ fields: [String: JSONValue]) -> Result<Void, Failure> {
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
