/// A message a host sends to the supervisor on `<runtime_dir>/host.sock`.
public enum HostToSupervisor: Hashable, Sendable {
    /// `list`: answered by `extensions`.
    case list(List)
    /// `pull`: answered by one `snapshot` carrying the same `id`.
    case pull(Pull)
    /// `subscribe`: from now on, every `newData` of these extensions is pushed as a `snapshot`.
    case subscribe(Subscribe)
    /// `perform`: runs an action or share extension; answered by `completed` or `error`.
    case perform(Perform)
    /// `open`: opens a link of an extension in its app; answered by `openResult`.
    case open(Open)
    /// `defaults` (apps only): the shared defaults of one of the app's groups.
    case defaults(Defaults)
    /// `reloadExtensions` (apps only): refresh the app's widgets within their budget.
    case reloadExtensions(ReloadExtensions)
    /// `setHasContent` (apps only): whether hosts should show one of the app's widgets.
    case setHasContent(SetHasContent)
    /// `visible`: which widgets the host shows, or stopped showing.
    case visible(Visible)
    /// `execute`: an `Action.Execute` of a widget's card; answered by a `snapshot`.
    case execute(Execute)
    /// `asset`: a file of a widget's `assets/` directory; answered by `assetResult`.
    case asset(Asset)
    /// `enable`, `addInstance`, `removeInstance`, `arrange` (hosts with `manage = true`):
    /// the user's gallery.
    case enable(Enable)
    case addInstance(AddInstance)
    case removeInstance(RemoveInstance)
    case arrange(Arrange)

    /// `{"type":"list","id":1}` — `id` is optional and echoed in the answer.
    public struct List: Codable, Hashable, Sendable {
        public var id: RequestID?
        /// The host's BCP 47 language tag (optional): names and descriptions come translated.
        public var locale: String?
        /// The place the host shows (optional): the answer's `arrangement` is that place's.
        public var place: String?

        /// Creates the value from its fields.
        public init(id: RequestID? = nil, locale: String? = nil, place: String? = nil) {
            self.id = id
            self.locale = locale
            self.place = place
        }

        private enum CodingKeys: String, CodingKey {
            case id, locale, place
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(RequestID.self, forKey: .id)
            locale = try container.decodeBoundedStringIfPresent(forKey: .locale, maxBytes: WireLimits.maxIdentifierBytes)
            place = try container.decodePlace(forKey: .place)
        }
    }

    /// `{"type":"pull","id":2,"extension":"com.example.weather.widget","mode":"compact","maxSize":{"width":320,"height":120}}`
    public struct Pull: Codable, Hashable, Sendable {
        public var id: RequestID
        public var extensionID: String
        public var mode: DisplayMode
        public var maxSize: Size
        /// `true`: an expired snapshot is answered after its update, not at once (optional).
        public var wait: Bool?
        /// Which instance of the widget (optional; at most ``WireLimits/maxIdentifierBytes``):
        /// each has its own snapshots.
        public var instance: String?
        /// The instance's settings, passed to the extension with its updates (optional; at
        /// most ``WireLimits/maxParamsBytes`` encoded).
        public var params: JSONValue?
        /// What the host renders for (optional, docs/PROTOCOL.md §6).
        public var colorScheme: ColorScheme?
        public var locale: String?
        public var scale: Double?
        /// The `[places.NAME]` the host shows it in (optional): its maximum size for the mode
        /// is the update's `maxSize`.
        public var place: String?

        /// Creates the value from its fields.
        public init(
            id: RequestID, extensionID: String, mode: DisplayMode, maxSize: Size, wait: Bool? = nil,
            instance: String? = nil, params: JSONValue? = nil, place: String? = nil,
            environment: RenderEnvironment = RenderEnvironment()
        ) {
            self.id = id
            self.extensionID = extensionID
            self.mode = mode
            self.maxSize = maxSize
            self.wait = wait
            self.instance = instance
            self.params = params
            self.place = place
            self.environment = environment
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensionID = "extension", mode, maxSize, wait, instance, params, place, colorScheme, locale, scale
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            extensionID = try container.decode(String.self, forKey: .extensionID)
            mode = try container.decode(DisplayMode.self, forKey: .mode)
            maxSize = try container.decode(Size.self, forKey: .maxSize)
            wait = try container.decodeIfPresent(Bool.self, forKey: .wait)
            instance = try container.decodeInstance(forKey: .instance)
            params = try container.decodeParams(forKey: .params)
            environment = try container.decodeRenderEnvironment(colorScheme: .colorScheme, locale: .locale, scale: .scale)
            place = try container.decodePlace(forKey: .place)
        }
    }

    /// `{"type":"subscribe","extensions":["com.example.weather.widget"]}` — an optional
    /// `id` is echoed in an `error` about an unknown extension.
    public struct Subscribe: Codable, Hashable, Sendable {
        public var id: RequestID?
        public var extensions: [String]
        /// An instance of these widgets to be pushed (optional, as in `pull`).
        public var instance: String?
        /// Its settings, kept for its updates (optional, as in `pull`).
        public var params: JSONValue?
        /// What the host renders for (optional, as in `pull`).
        public var colorScheme: ColorScheme?
        public var locale: String?
        public var scale: Double?
        /// The place the host shows them in (optional, as in `pull`).
        public var place: String?

        /// Creates the value from its fields.
        public init(
            id: RequestID? = nil, extensions: [String], instance: String? = nil, params: JSONValue? = nil,
            place: String? = nil,
            environment: RenderEnvironment = RenderEnvironment()
        ) {
            self.id = id
            self.extensions = extensions
            self.instance = instance
            self.params = params
            self.place = place
            self.environment = environment
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensions, instance, params, place, colorScheme, locale, scale
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(RequestID.self, forKey: .id)
            extensions = try container.decode([String].self, forKey: .extensions)
            instance = try container.decodeInstance(forKey: .instance)
            params = try container.decodeParams(forKey: .params)
            environment = try container.decodeRenderEnvironment(colorScheme: .colorScheme, locale: .locale, scale: .scale)
            place = try container.decodePlace(forKey: .place)
        }
    }

    /// `{"type":"perform","id":3,"extension":"com.example.photos.resize","items":[...]}`
    public struct Perform: Codable, Hashable, Sendable {
        public var id: RequestID
        public var extensionID: String
        public var items: [Item]

        /// Creates the value from its fields.
        public init(id: RequestID, extensionID: String, items: [Item]) {
            self.id = id
            self.extensionID = extensionID
            self.items = items
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensionID = "extension", items
        }
    }
}

extension HostToSupervisor: WireMessageGroup {
    public init(type: String, decoder: any Decoder) throws(ProtocolError) {
        switch type {
        case "list": self = .list(try WireCoding.decodePayload(List.self, of: type, from: decoder))
        case "pull": self = .pull(try WireCoding.decodePayload(Pull.self, of: type, from: decoder))
        case "subscribe": self = .subscribe(try WireCoding.decodePayload(Subscribe.self, of: type, from: decoder))
        case "perform": self = .perform(try WireCoding.decodePayload(Perform.self, of: type, from: decoder))
        case "open": self = .open(try WireCoding.decodePayload(Open.self, of: type, from: decoder))
        case "defaults": self = .defaults(try WireCoding.decodePayload(Defaults.self, of: type, from: decoder))
        case "reloadExtensions":
            self = .reloadExtensions(try WireCoding.decodePayload(ReloadExtensions.self, of: type, from: decoder))
        case "setHasContent":
            self = .setHasContent(try WireCoding.decodePayload(SetHasContent.self, of: type, from: decoder))
        case "visible": self = .visible(try WireCoding.decodePayload(Visible.self, of: type, from: decoder))
        case "execute": self = .execute(try WireCoding.decodePayload(Execute.self, of: type, from: decoder))
        case "asset": self = .asset(try WireCoding.decodePayload(Asset.self, of: type, from: decoder))
        case "enable": self = .enable(try WireCoding.decodePayload(Enable.self, of: type, from: decoder))
        case "addInstance": self = .addInstance(try WireCoding.decodePayload(AddInstance.self, of: type, from: decoder))
        case "removeInstance": self = .removeInstance(try WireCoding.decodePayload(RemoveInstance.self, of: type, from: decoder))
        case "arrange": self = .arrange(try WireCoding.decodePayload(Arrange.self, of: type, from: decoder))
        default: throw .unknownType(type)
        }
    }

    public var type: String {
        switch self {
        case .list: "list"
        case .pull: "pull"
        case .subscribe: "subscribe"
        case .perform: "perform"
        case .open: "open"
        case .defaults: "defaults"
        case .reloadExtensions: "reloadExtensions"
        case .setHasContent: "setHasContent"
        case .visible: "visible"
        case .execute: "execute"
        case .asset: "asset"
        case .enable: "enable"
        case .addInstance: "addInstance"
        case .removeInstance: "removeInstance"
        case .arrange: "arrange"
        }
    }

    /// Decodes one line (without its newline); a plain `pull` takes a fast path.
    public static func decode(line: some Collection<UInt8>) throws(ProtocolError) -> Self {
        if let pull = PullFastPath.decode(line) { return .pull(pull) }
        return try WireCoding.decodeLine(line, as: Self.self)
    }

    public func encodeFields(to encoder: any Encoder) throws {
        switch self {
        case .list(let fields): try fields.encode(to: encoder)
        case .pull(let fields): try fields.encode(to: encoder)
        case .subscribe(let fields): try fields.encode(to: encoder)
        case .perform(let fields): try fields.encode(to: encoder)
        case .open(let fields): try fields.encode(to: encoder)
        case .defaults(let fields): try fields.encode(to: encoder)
        case .reloadExtensions(let fields): try fields.encode(to: encoder)
        case .setHasContent(let fields): try fields.encode(to: encoder)
        case .visible(let fields): try fields.encode(to: encoder)
        case .execute(let fields): try fields.encode(to: encoder)
        case .asset(let fields): try fields.encode(to: encoder)
        case .enable(let fields): try fields.encode(to: encoder)
        case .addInstance(let fields): try fields.encode(to: encoder)
        case .removeInstance(let fields): try fields.encode(to: encoder)
        case .arrange(let fields): try fields.encode(to: encoder)
        }
    }
}
