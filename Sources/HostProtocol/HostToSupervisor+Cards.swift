import WireProtocol

/// The host messages of cards (docs/PROTOCOL.md §6): a tap on an `Action.Execute`, and
/// the assets a card's images name.
extension HostToSupervisor {
    /// `{"type":"execute","id":5,"extension":"com.example.lamp","verb":"toggle","data":{"on":true},"mode":"compact","maxSize":{"width":320,"height":110}}`:
    /// answered by a `snapshot` with its `id` (the widget's new card, as a waiting `pull`'s
    /// answer) or an `error`.
    public struct Execute: Codable, Hashable, Sendable {
        public var id: RequestID
        public var extensionID: String
        /// At most ``WireLimits/maxIdentifierBytes``.
        public var verb: String
        /// At most ``WireLimits/maxParamsBytes`` encoded; absent is `null`.
        public var data: JSONValue?
        public var mode: DisplayMode
        public var maxSize: Size
        public var instance: String?
        public var colorScheme: ColorScheme?
        public var locale: String?
        public var scale: Double?

        /// Creates the value from its fields.
        public init(
            id: RequestID, extensionID: String, verb: String, data: JSONValue? = nil, mode: DisplayMode, maxSize: Size,
            instance: String? = nil, environment: RenderEnvironment = RenderEnvironment()
        ) {
            self.id = id
            self.extensionID = extensionID
            self.verb = verb
            self.data = data
            self.mode = mode
            self.maxSize = maxSize
            self.instance = instance
            self.environment = environment
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensionID = "extension", verb, data, mode, maxSize, instance, colorScheme, locale, scale
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            extensionID = try container.decodeBoundedString(forKey: .extensionID, maxBytes: WireLimits.maxIdentifierBytes)
            verb = try container.decodeBoundedString(forKey: .verb, maxBytes: WireLimits.maxIdentifierBytes)
            data = try container.decodeParams(forKey: .data)
            mode = try container.decode(DisplayMode.self, forKey: .mode)
            maxSize = try container.decode(Size.self, forKey: .maxSize)
            instance = try container.decodeInstance(forKey: .instance)
            environment = try container.decodeRenderEnvironment(colorScheme: .colorScheme, locale: .locale, scale: .scale)
        }
    }

    /// `{"type":"asset","id":6,"extension":"com.example.weather","name":"sun.png"}`: a file of
    /// the widget's `assets/` directory, answered by `assetResult` or an `error`.
    public struct Asset: Codable, Hashable, Sendable {
        public var id: RequestID
        public var extensionID: String
        /// A file name: letters, digits, `.`, `_`, `-`, not starting with `.`, at most 128 bytes.
        public var name: String

        /// Creates the value from its fields.
        public init(id: RequestID, extensionID: String, name: String) {
            self.id = id
            self.extensionID = extensionID
            self.name = name
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensionID = "extension", name
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            extensionID = try container.decodeBoundedString(forKey: .extensionID, maxBytes: WireLimits.maxIdentifierBytes)
            name = try container.decodeBoundedString(forKey: .name, maxBytes: WireLimits.maxIdentifierBytes)
        }
    }
}

extension SupervisorToHost {
    /// `{"type":"assetResult","id":6,"contentType":"image/png","data":"iVBORw0KGgo…"}`: the
    /// answer to `asset`, the file's bytes in base64.
    public struct AssetResult: Codable, Hashable, Sendable {
        public var id: RequestID
        public var contentType: String
        public var data: String

        /// Creates the value from its fields.
        public init(id: RequestID, contentType: String, data: String) {
            self.id = id
            self.contentType = contentType
            self.data = data
        }
    }
}

extension HostToSupervisor.Pull: CarriesEnvironment {}
extension HostToSupervisor.Subscribe: CarriesEnvironment {}
extension HostToSupervisor.Visible: CarriesEnvironment {}
extension HostToSupervisor.Execute: CarriesEnvironment {}
