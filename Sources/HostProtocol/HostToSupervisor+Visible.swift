extension HostToSupervisor {
    /// `{"type":"visible","extensions":[{"extension":"com.example.weather.widget"}],"visible":true}`:
    /// what the host shows now. A widget that hosts report on but none shows is hidden: its
    /// scheduled refreshes wait until one shows it. No answer; an optional `id` is echoed in
    /// an `error`.
    public struct Visible: Codable, Hashable, Sendable {
        public var id: RequestID?
        /// At most ``WireLimits/maxExtensionsPerRequest``.
        public var extensions: [Shown]
        public var visible: Bool
        /// What the host renders for (optional, as in `pull`).
        public var colorScheme: ColorScheme?
        public var locale: String?
        public var scale: Double?
        /// The place the host shows them in (optional, as in `pull`).
        public var place: String?

        /// Creates the value from its fields.
        public init(
            id: RequestID? = nil, extensions: [Shown], visible: Bool, place: String? = nil,
            environment: RenderEnvironment = RenderEnvironment()
        ) {
            self.id = id
            self.extensions = extensions
            self.visible = visible
            self.place = place
            self.environment = environment
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensions, visible, place, colorScheme, locale, scale
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(RequestID.self, forKey: .id)
            extensions = try container.decodeShownList(forKey: .extensions)
            visible = try container.decode(Bool.self, forKey: .visible)
            environment = try container.decodeRenderEnvironment(colorScheme: .colorScheme, locale: .locale, scale: .scale)
            place = try container.decodePlace(forKey: .place)
        }
    }

    /// One widget a `visible` names, and which of its instances.
    public struct Shown: Codable, Hashable, Sendable {
        public var extensionID: String
        /// An instance name (at most ``WireLimits/maxIdentifierBytes``); the widget's
        /// visibility is that of any of its instances.
        public var instance: String?

        /// Creates the value from its fields.
        public init(extensionID: String, instance: String? = nil) {
            self.extensionID = extensionID
            self.instance = instance
        }

        private enum CodingKeys: String, CodingKey {
            case extensionID = "extension", instance
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            extensionID = try container.decodeBoundedString(forKey: .extensionID, maxBytes: WireLimits.maxIdentifierBytes)
            instance = try container.decodeBoundedStringIfPresent(forKey: .instance, maxBytes: WireLimits.maxIdentifierBytes)
        }
    }
}
