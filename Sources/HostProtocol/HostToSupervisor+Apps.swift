/// What a containing app may send on `host.sock` besides what every host sends: it writes
/// what its widgets read (docs/PROTOCOL.md §3, "The containing app").
extension HostToSupervisor {
    /// `{"type":"defaults","id":4,"group":"group.demo","op":"set","key":"city","value":"Oslo"}`:
    /// the extension protocol's message, on one of the app's own groups; answered by
    /// `defaultsResult`.
    public typealias Defaults = ExtensionToSupervisor.Defaults

    /// `{"type":"reloadExtensions","id":5,"extensions":["com.example.weather.widget"]}`:
    /// refresh these widgets of the app now, each spending a token of its refresh budget
    /// (WidgetKit's `reloadTimelines`); answered by `reloadResult`.
    public struct ReloadExtensions: Codable, Hashable, Sendable {
        public var id: RequestID
        /// At most ``WireLimits/maxExtensionsPerRequest``, each at most ``WireLimits/maxIdentifierBytes``.
        public var extensions: [String]

        /// Creates the value from its fields.
        public init(id: RequestID, extensions: [String]) {
            self.id = id
            self.extensions = extensions
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensions
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            extensions = try container.decodeExtensionIDs(forKey: .extensions)
        }
    }

    /// `{"type":"setHasContent","extension":"com.example.weather.widget","value":false}`:
    /// whether hosts should show one of the app's widgets (`NCWidgetController`); kept
    /// across restarts. No answer; an optional `id` is echoed in an `error`.
    public struct SetHasContent: Codable, Hashable, Sendable {
        public var id: RequestID?
        public var extensionID: String
        public var value: Bool

        /// Creates the value from its fields.
        public init(id: RequestID? = nil, extensionID: String, value: Bool) {
            self.id = id
            self.extensionID = extensionID
            self.value = value
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensionID = "extension", value
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(RequestID.self, forKey: .id)
            extensionID = try container.decodeBoundedString(forKey: .extensionID, maxBytes: WireLimits.maxIdentifierBytes)
            value = try container.decode(Bool.self, forKey: .value)
        }
    }
}
