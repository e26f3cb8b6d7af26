/// What a host with `manage = true` (a Today view's edit mode, a widget gallery) sends on the
/// user's behalf (docs/PROTOCOL.md §3, "The gallery"). Each is answered by a ``SupervisorToHost/ManageResult``.
extension HostToSupervisor {
    /// `{"type":"enable","id":1,"extension":"com.example.weather.widget","enabled":true}`:
    /// the user turns a widget on or off, as `supervisorctl enable` does; answered by `enableResult`.
    public struct Enable: Codable, Hashable, Sendable {
        public var id: RequestID
        public var extensionID: String
        public var enabled: Bool

        /// Creates the value from its fields.
        public init(id: RequestID, extensionID: String, enabled: Bool) {
            self.id = id
            self.extensionID = extensionID
            self.enabled = enabled
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensionID = "extension", enabled
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            extensionID = try container.decodeBoundedString(forKey: .extensionID, maxBytes: WireLimits.maxIdentifierBytes)
            enabled = try container.decode(Bool.self, forKey: .enabled)
        }
    }

    /// `{"type":"addInstance","id":2,"extension":"com.example.weather.widget","instance":"paris","params":{"city":"Paris"},"place":"home"}`:
    /// the user adds a widget (or changes an added one's settings); kept across restarts.
    /// Answered by `addInstanceResult`.
    public struct AddInstance: Codable, Hashable, Sendable {
        public var id: RequestID
        public var extensionID: String
        /// At most ``WireLimits/maxIdentifierBytes``.
        public var instance: String
        /// At most ``WireLimits/maxParamsBytes`` encoded.
        public var params: JSONValue
        /// The `[places.NAME]` it was added to (optional).
        public var place: String?

        /// Creates the value from its fields.
        public init(id: RequestID, extensionID: String, instance: String, params: JSONValue, place: String? = nil) {
            self.id = id
            self.extensionID = extensionID
            self.instance = instance
            self.params = params
            self.place = place
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensionID = "extension", instance, params, place
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            extensionID = try container.decodeBoundedString(forKey: .extensionID, maxBytes: WireLimits.maxIdentifierBytes)
            instance = try container.decodeBoundedString(forKey: .instance, maxBytes: WireLimits.maxIdentifierBytes)
            guard let params = try container.decodeParams(forKey: .params) else {
                throw DecodingError.keyNotFound(CodingKeys.params, .init(codingPath: container.codingPath, debugDescription: "required"))
            }
            self.params = params
            place = try container.decodePlace(forKey: .place)
        }
    }

    /// `{"type":"removeInstance","id":3,"extension":"com.example.weather.widget","instance":"paris"}`:
    /// the user removes an added widget: its snapshots and schedule are forgotten. Answered
    /// by `removeInstanceResult`.
    public struct RemoveInstance: Codable, Hashable, Sendable {
        public var id: RequestID
        public var extensionID: String
        public var instance: String

        /// Creates the value from its fields.
        public init(id: RequestID, extensionID: String, instance: String) {
            self.id = id
            self.extensionID = extensionID
            self.instance = instance
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensionID = "extension", instance
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            extensionID = try container.decodeBoundedString(forKey: .extensionID, maxBytes: WireLimits.maxIdentifierBytes)
            instance = try container.decodeBoundedString(forKey: .instance, maxBytes: WireLimits.maxIdentifierBytes)
        }
    }

    /// `{"type":"arrange","id":4,"place":"home","widgets":[{"extension":"…","instance":"paris"}]}`:
    /// the order the user gave the widgets of one place on this host; kept across restarts and
    /// told back in `list`'s `arrangement`. Answered by `arrangeResult`.
    public struct Arrange: Codable, Hashable, Sendable {
        public var id: RequestID
        /// The place arranged (optional: the host's only one).
        public var place: String?
        /// First shown first; at most ``WireLimits/maxExtensionsPerRequest``.
        public var widgets: [Shown]

        /// Creates the value from its fields.
        public init(id: RequestID, place: String? = nil, widgets: [Shown]) {
            self.id = id
            self.place = place
            self.widgets = widgets
        }

        private enum CodingKeys: String, CodingKey {
            case id, place, widgets
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            place = try container.decodePlace(forKey: .place)
            widgets = try container.decodeShownList(forKey: .widgets)
        }
    }
}

extension KeyedDecodingContainer {
    /// A `[places.NAME]` name, at most ``WireLimits/maxIdentifierBytes``, if present.
    func decodePlace(forKey key: Key) throws -> String? {
        try decodeBoundedStringIfPresent(forKey: key, maxBytes: WireLimits.maxIdentifierBytes)
    }

    /// At most ``WireLimits/maxExtensionsPerRequest`` widgets or instances.
    func decodeShownList(forKey key: Key) throws -> [HostToSupervisor.Shown] {
        var list = try nestedUnkeyedContainer(forKey: key)
        var widgets: [HostToSupervisor.Shown] = []
        while !list.isAtEnd {
            guard widgets.count < WireLimits.maxExtensionsPerRequest else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: self, debugDescription: "more than \(WireLimits.maxExtensionsPerRequest) extensions")
            }
            widgets.append(try list.decode(HostToSupervisor.Shown.self))
        }
        return widgets
    }
}
