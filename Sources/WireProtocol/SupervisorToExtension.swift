/// A message the supervisor sends to an extension on its fd 3 socket.
public enum SupervisorToExtension: Hashable, Sendable {
    /// `update`: asks a widget for new content; answered by one `result`.
    case update(Update)
    /// `execute`: a host's `Action.Execute` on the widget's card; answered by one `result`.
    case execute(Execute)
    /// `begin`: hands items to an action or share extension; answered by `complete`.
    case begin(Begin)
    /// `openURLResult`: the answer to the extension's `openURL`.
    case openURLResult(OpenURLResult)
    /// `defaultsResult`: the answer to the extension's `defaults`.
    case defaultsResult(DefaultsResult)
    /// `memoryWarning`: the extension's cgroup crossed `memory_high`.
    case memoryWarning(MemoryWarning)
    /// `terminate`: idle exit; exit within the grace period.
    case terminate

    /// `{"type":"update","id":7,"mode":"compact","maxSize":{"width":320,"height":120},"reason":"pull"}`
    public struct Update: Codable, Hashable, Sendable {
        public var id: RequestID
        public var mode: DisplayMode
        public var maxSize: Size
        public var reason: UpdateReason
        /// The instance updated, when a host pulled one (absent: the widget itself).
        public var instance: String?
        /// That instance's `params`, as the host last gave them.
        public var params: JSONValue?
        /// What the host renders for, as far as it said (docs/PROTOCOL.md §6).
        public var colorScheme: ColorScheme?
        public var locale: String?
        public var scale: Double?
        /// A pull after a host switched the widget to this mode (WidgetKit's
        /// `widgetActiveDisplayModeDidChange`): `reason` is `"modeChange"` on the wire, and
        /// ``reason`` `.pull` (so that switches over ``UpdateReason`` written for version 1 hold).
        public var modeChanged = false

        /// Creates the value from its fields.
        public init(
            id: RequestID, mode: DisplayMode, maxSize: Size, reason: UpdateReason,
            instance: String? = nil, params: JSONValue? = nil, modeChanged: Bool = false,
            environment: RenderEnvironment = RenderEnvironment()
        ) {
            self.id = id
            self.mode = mode
            self.maxSize = maxSize
            self.reason = reason
            self.instance = instance
            self.params = params
            self.modeChanged = modeChanged
            self.environment = environment
        }

        private enum CodingKeys: String, CodingKey {
            case id, mode, maxSize, reason, instance, params, colorScheme, locale, scale
        }

        /// `reason` as written on the wire.
        private var wireReason: String { modeChanged ? Self.modeChange : reason.rawValue }
        private static let modeChange = "modeChange"

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            mode = try container.decode(DisplayMode.self, forKey: .mode)
            maxSize = try container.decode(Size.self, forKey: .maxSize)
            modeChanged = try container.decode(String.self, forKey: .reason) == Self.modeChange
            reason = modeChanged ? .pull : try container.decode(UpdateReason.self, forKey: .reason)
            instance = try container.decodeIfPresent(String.self, forKey: .instance)
            params = try container.decodeIfPresent(JSONValue.self, forKey: .params)
            environment = try container.decodeRenderEnvironment(colorScheme: .colorScheme, locale: .locale, scale: .scale)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(mode, forKey: .mode)
            try container.encode(maxSize, forKey: .maxSize)
            try container.encode(wireReason, forKey: .reason)
            try container.encodeIfPresent(instance, forKey: .instance)
            try container.encodeIfPresent(params, forKey: .params)
            try container.encodeIfPresent(colorScheme, forKey: .colorScheme)
            try container.encodeIfPresent(locale, forKey: .locale)
            try container.encodeIfPresent(scale, forKey: .scale)
        }

        /// The whole `update` line, the same JSON as the general encoder's (keys sorted).
        func encodedLine() -> [UInt8] {
            var line = JSONLineWriter(capacity: 128 + (instance?.utf8.count ?? 0))
            line.beginObject()
            if let colorScheme { line.field("colorScheme", string: colorScheme.rawValue) }
            line.field("id", integer: id.rawValue)
            if let instance { line.field("instance", string: instance) }
            if let locale { line.field("locale", string: locale) }
            line.beginObject("maxSize")
            line.field("height", integer: maxSize.height)
            line.field("width", integer: maxSize.width)
            line.endObject()
            line.field("mode", string: mode.rawValue)
            if let params { line.field("params", json: params.encoded().bytes) }
            line.field("reason", string: wireReason)
            if let scale { line.field("scale", json: JSONValue.number(scale).encoded().bytes) }
            line.field("type", string: "update")
            return line.endMessage()
        }
    }

    /// `{"type":"begin","id":3,"items":[{"type":"public.image","path":"/tmp/a.png"}]}`
    public struct Begin: Codable, Hashable, Sendable {
        public var id: RequestID
        public var items: [Item]

        /// Creates the value from its fields.
        public init(id: RequestID, items: [Item]) {
            self.id = id
            self.items = items
        }
    }

    /// `{"type":"openURLResult","id":1,"success":true}`
    public struct OpenURLResult: Codable, Hashable, Sendable {
        public var id: RequestID
        public var success: Bool

        /// Creates the value from its fields.
        public init(id: RequestID, success: Bool) {
            self.id = id
            self.success = success
        }
    }

    /// `{"type":"defaultsResult","id":2,"value":3}` or `{"type":"defaultsResult","id":2,"error":"..."}`
    ///
    /// `get` answers the stored value (`null` for a missing key), `list` an array of the
    /// keys in ascending order, `set` and `remove` `null`.
    public struct DefaultsResult: Codable, Hashable, Sendable {
        /// The value, or why the request failed.
        public enum Outcome: Hashable, Sendable {
            case value(JSONValue)
            case error(String)
        }

        public var id: RequestID
        public var outcome: Outcome

        /// Creates the value from its fields.
        public init(id: RequestID, outcome: Outcome) {
            self.id = id
            self.outcome = outcome
        }

        private enum CodingKeys: String, CodingKey {
            case id, value, error
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            if let error = try container.decodeIfPresent(String.self, forKey: .error) {
                outcome = .error(error)
            } else {
                outcome = .value(try container.decodeIfPresent(JSONValue.self, forKey: .value) ?? .null)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            switch outcome {
            case .value(let value): try container.encode(value, forKey: .value)
            case .error(let error): try container.encode(error, forKey: .error)
            }
        }
    }

    /// `{"type":"memoryWarning","current":20971520,"high":20971520}` (bytes): the extension's
    /// cgroup crossed its `memory_high`. With `"level":"warn"`, the whole tree crossed the
    /// `pressure.warn` watermark: `current` is the tree's working set and `high` the watermark.
    public struct MemoryWarning: Codable, Hashable, Sendable {
        public var current: UInt64
        public var high: UInt64
        /// Absent: `high`, the extension's own limit.
        public var level: MemoryWarningLevel?

        /// Creates the value from its fields.
        public init(current: UInt64, high: UInt64, level: MemoryWarningLevel? = nil) {
            self.current = current
            self.high = high
            self.level = level
        }

        private enum CodingKeys: String, CodingKey {
            case current, high, level
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            current = try container.decodeWireInteger(UInt64.self, forKey: .current)
            high = try container.decodeWireInteger(UInt64.self, forKey: .high)
            level = try container.decodeIfPresent(MemoryWarningLevel.self, forKey: .level)
        }
    }
}

extension SupervisorToExtension.Update: CarriesEnvironment {}
extension SupervisorToExtension.Execute: CarriesEnvironment {}

extension SupervisorToExtension: WireMessageGroup {
    public init(type: String, decoder: any Decoder) throws(ProtocolError) {
        switch type {
        case "update": self = .update(try WireCoding.decodePayload(Update.self, of: type, from: decoder))
        case "execute": self = .execute(try WireCoding.decodePayload(Execute.self, of: type, from: decoder))
        case "begin": self = .begin(try WireCoding.decodePayload(Begin.self, of: type, from: decoder))
        case "openURLResult":
            self = .openURLResult(try WireCoding.decodePayload(OpenURLResult.self, of: type, from: decoder))
        case "defaultsResult":
            self = .defaultsResult(try WireCoding.decodePayload(DefaultsResult.self, of: type, from: decoder))
        case "memoryWarning":
            self = .memoryWarning(try WireCoding.decodePayload(MemoryWarning.self, of: type, from: decoder))
        case "terminate": self = .terminate
        default: throw .unknownType(type)
        }
    }

    public var type: String {
        switch self {
        case .update: "update"
        case .execute: "execute"
        case .begin: "begin"
        case .openURLResult: "openURLResult"
        case .defaultsResult: "defaultsResult"
        case .memoryWarning: "memoryWarning"
        case .terminate: "terminate"
        }
    }

    /// The message as one line of compact JSON, newline included; `update`, sent for every
    /// refresh, is written directly.
    public func encodedLine() -> [UInt8] {
        if case .update(let update) = self { return update.encodedLine() }
        return WireCoding.encodeLine(Enveloped(message: self))
    }

    public func encodeFields(to encoder: any Encoder) throws {
        switch self {
        case .update(let fields): try fields.encode(to: encoder)
        case .execute(let fields): try fields.encode(to: encoder)
        case .begin(let fields): try fields.encode(to: encoder)
        case .openURLResult(let fields): try fields.encode(to: encoder)
        case .defaultsResult(let fields): try fields.encode(to: encoder)
        case .memoryWarning(let fields): try fields.encode(to: encoder)
        case .terminate: break
        }
    }
}
