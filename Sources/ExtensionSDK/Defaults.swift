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

/// Why a shared-defaults call failed: compare ``code`` with the codes you handle. A struct
/// rather than an enum, so that a code added in a later version does not break a widget's
/// `switch`.
public struct DefaultsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; later versions may add codes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case rejected, disconnected, unexpectedReply
        }
        private let kind: Kind

        /// The supervisor refused the request (for example a group of another app);
        /// ``DefaultsError/reason`` says why.
        public static let rejected = Code(kind: .rejected)
        /// The supervisor could not be reached.
        public static let disconnected = Code(kind: .disconnected)
        /// The supervisor's answer did not have the documented shape.
        public static let unexpectedReply = Code(kind: .unexpectedReply)

        /// The code's name, as in `rejected`.
        public var description: String { kind.rawValue }
    }

    /// What failed.
    public let code: Code
    /// The supervisor's words for a ``Code/rejected`` request; `nil` for the other codes.
    public let reason: String?

    public var description: String {
        switch code {
        case .rejected: "the supervisor refused the shared-defaults request: \(reason ?? "")"
        case .disconnected: "the supervisor could not be reached"
        default: "the supervisor's answer to a shared-defaults request did not have the documented shape"
        }
    }

    // The errors by code, for test doubles of a store.

    /// The supervisor refused the request for `reason`.
    public static func rejected(_ reason: String) -> DefaultsError { DefaultsError(code: .rejected, reason: reason) }
    /// The supervisor could not be reached.
    public static let disconnected = DefaultsError(code: .disconnected, reason: nil)
    /// The supervisor's answer did not have the documented shape.
    public static let unexpectedReply = DefaultsError(code: .unexpectedReply, reason: nil)
}
