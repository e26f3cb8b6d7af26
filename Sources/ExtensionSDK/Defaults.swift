/// The shared defaults of one app group: a key-value store the extension shares with its
/// containing app, kept by the supervisor (as `UserDefaults(suiteName:)`).
public struct Defaults {
    /// The app group, such as `group.com.example.weather`.
    public let group: String
    private let context: ExtensionContext

    init(group: String, context: ExtensionContext) {
        self.group = group
        self.context = context
    }

    /// The value stored under `key`, or `nil` if there is none.
    public func get(_ key: String) throws(DefaultsError) -> JSONValue? {
        let value = try perform(.get, key: key)
        return value == .null ? nil : value
    }

    /// Stores `value` under `key`, replacing any previous value.
    public func set(_ key: String, to value: JSONValue) throws(DefaultsError) {
        _ = try perform(.set, key: key, value: value)
    }

    /// Removes `key`; removing a missing key is not an error.
    public func remove(_ key: String) throws(DefaultsError) {
        _ = try perform(.remove, key: key)
    }

    /// All keys, in ascending order.
    public func list() throws(DefaultsError) -> [String] {
        let value = try perform(.list)
        guard case .array(let keys) = value else { throw .unexpectedReply }
        return try keys.map { key throws(DefaultsError) in
            guard let key = key.stringValue else { throw .unexpectedReply }
            return key
        }
    }

    private func perform(
        _ op: DefaultsOperation, key: String? = nil, value: JSONValue? = nil
    ) throws(DefaultsError) -> JSONValue {
        let outcome: SupervisorToExtension.DefaultsResult.Outcome
        do {
            outcome = try context.connection.request(
                { .defaults(.init(id: $0, group: group, op: op, key: key, value: value)) },
                reply: { message, id in
                    guard case .defaultsResult(let result) = message, result.id == id else { return nil }
                    return result.outcome
                })
        } catch {
            throw .disconnected
        }
        switch outcome {
        case .value(let value): return value
        case .error(let message): throw .rejected(message)
        }
    }
}

/// Why a shared-defaults call failed.
public enum DefaultsError: Error, Hashable, Sendable {
    /// The supervisor refused the request (for example a group of another app); the message says why.
    case rejected(String)
    /// The supervisor could not be reached.
    case disconnected
    /// The supervisor's answer did not have the documented shape.
    case unexpectedReply
}
