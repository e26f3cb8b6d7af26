/// A message the supervisor sends to a host on `<runtime_dir>/host.sock`.
public enum SupervisorToHost: Hashable, Sendable {
    /// `extensions`: the answer to `list`.
    case extensions(Extensions)
    /// `snapshot`: the answer to `pull`, or a push to subscribers on `newData`.
    case snapshot(Snapshot)
    /// `completed`: the answer to `perform`.
    case completed(Completed)
    /// `extensionTerminated`: an extension process ended.
    case extensionTerminated(ExtensionTerminated)
    /// `openURL`: an app was opened for a URL (sent to every host; an app connected as
    /// the URL's handler opens it).
    case openURL(OpenURL)
    /// `openResult`: the answer to `open`.
    case openResult(OpenResult)
    /// `error`: a request failed.
    case error(RequestError)
    /// `defaultsResult`: the answer to an app's `defaults`.
    case defaultsResult(DefaultsResult)
    /// `reloadResult`: the answer to an app's `reloadExtensions`.
    case reloadResult(ReloadResult)
    /// `hasContentChanged`: an extension's `hasContent` changed.
    case hasContentChanged(HasContentChanged)
    /// `assetResult`: the answer to `asset`.
    case assetResult(AssetResult)
    /// `enableResult`, `addInstanceResult`, `removeInstanceResult`, `arrangeResult`: the
    /// answers to a managing host's requests (the gallery).
    case enableResult(ManageResult)
    case addInstanceResult(ManageResult)
    case removeInstanceResult(ManageResult)
    case arrangeResult(ManageResult)

    /// `{"type":"extensions","id":1,"extensions":[{"id":"...","app":"...","point":"widget","enabled":true,"hasContent":true}]}`
    public struct Extensions: Codable, Hashable, Sendable {
        /// The `id` of the `list`, if it had one; absent when pushed because the set changed.
        public var id: RequestID?
        public var extensions: [ExtensionInfo]
        /// The order the user gave the widgets of the list's place on this host (`arrange`).
        public var arrangement: [HostToSupervisor.Shown]?

        /// Creates the value from its fields.
        public init(id: RequestID? = nil, extensions: [ExtensionInfo], arrangement: [HostToSupervisor.Shown]? = nil) {
            self.id = id
            self.extensions = extensions
            self.arrangement = arrangement
        }
    }

    /// One configured extension, as listed to hosts.
    public struct ExtensionInfo: Codable, Hashable, Sendable {
        public var id: String
        /// The containing app.
        public var app: String
        /// The extension point: `widget`, `action` or `share`.
        public var point: String
        /// Whether the user enabled it; hosts pull only enabled extensions.
        public var enabled: Bool
        /// `false` after the extension sent `setHasContent false`; hosts then hide it.
        public var hasContent: Bool
        /// Widgets: the display modes it may be pulled in; absent for other points.
        public var modes: [DisplayMode]?
        /// Widgets with `card_template`: the Adaptive Card template their snapshots are the
        /// data of (docs/PROTOCOL.md §6).
        public var cardTemplate: EncodedJSON?
        /// The gallery's fields (absent when the config declares none): see ``GalleryFields``.
        public var displayName: String?
        public var description: String?
        public var preview: JSONValue?
        public var parameters: [ParameterInfo]?
        public var instances: [InstanceInfo]?
        /// The largest mode the widget offers now, when its last `result` said.
        public var largestMode: DisplayMode?

        /// Creates the value from its fields.
        public init(
            id: String, app: String, point: String, enabled: Bool, hasContent: Bool, modes: [DisplayMode]? = nil,
            displayName: String? = nil, description: String? = nil, preview: JSONValue? = nil,
            parameters: [ParameterInfo]? = nil, instances: [InstanceInfo]? = nil, largestMode: DisplayMode? = nil,
            cardTemplate: EncodedJSON? = nil
        ) {
            self.id = id
            self.app = app
            self.point = point
            self.enabled = enabled
            self.hasContent = hasContent
            self.modes = modes
            self.cardTemplate = cardTemplate
            self.displayName = displayName
            self.description = description
            self.preview = preview
            self.parameters = parameters
            self.instances = instances
            self.largestMode = largestMode
        }
    }

    /// `{"type":"snapshot","id":2,"extension":"...","result":"cached","snapshot":{...},"version":4,"ageMs":1200,"stale":false}`
    ///
    /// The snapshot is held pre-encoded, so that serving the same cached snapshot to many
    /// pulls never re-encodes it (see ``SupervisorToHost/encodedLine()``).
    public struct Snapshot: Codable, Hashable, Sendable {
        /// The `id` of the pull; `nil` for a push to subscribers.
        public var id: RequestID?
        public var extensionID: String
        public var result: SnapshotResult
        /// The latest snapshot; `nil` (`null` on the wire) if the extension never produced one.
        public var snapshot: EncodedJSON?
        /// Bumped by exactly one on every `newData`; 0 before the first.
        public var version: UInt64
        /// Milliseconds since the snapshot was produced.
        public var ageMs: UInt64
        /// Whether the snapshot is older than the last failed update.
        public var stale: Bool
        /// A cached answer from a snapshot past its freshness while an update replaces it;
        /// the update's outcome follows as a pushed `snapshot`. Written only when `true`.
        public var expired: Bool
        /// Why the last update failed, when `result` is `failed` or `stale` is true.
        public var error: String?
        /// The display mode the snapshot is for (each mode has its own snapshot and versions).
        public var mode: DisplayMode?
        /// The size the extension would like its content shown at, when it said.
        public var preferredSize: Size?
        /// When the snapshot came from a `timeline`: the entry's date.
        public var date: UnixTime?
        /// The instance the snapshot is of, when it is not the widget itself.
        public var instance: String?

        /// Creates the value from its fields.
        public init(
            id: RequestID?, extensionID: String, result: SnapshotResult, snapshot: EncodedJSON?, version: UInt64,
            ageMs: UInt64, stale: Bool, expired: Bool = false, error: String? = nil, mode: DisplayMode? = nil,
            preferredSize: Size? = nil, date: UnixTime? = nil, instance: String? = nil
        ) {
            self.id = id
            self.extensionID = extensionID
            self.result = result
            self.snapshot = snapshot
            self.version = version
            self.ageMs = ageMs
            self.stale = stale
            self.expired = expired
            self.error = error
            self.mode = mode
            self.preferredSize = preferredSize
            self.date = date
            self.instance = instance
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensionID = "extension", result, snapshot, version, ageMs, stale, expired, error, mode, preferredSize, date,
                instance
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(RequestID.self, forKey: .id)
            extensionID = try container.decode(String.self, forKey: .extensionID)
            result = try container.decode(SnapshotResult.self, forKey: .result)
            snapshot = try container.decodeIfPresent(JSONValue.self, forKey: .snapshot)?.encoded()
            version = try container.decodeWireInteger(UInt64.self, forKey: .version)
            ageMs = try container.decodeWireInteger(UInt64.self, forKey: .ageMs)
            stale = try container.decode(Bool.self, forKey: .stale)
            expired = try container.decodeIfPresent(Bool.self, forKey: .expired) ?? false
            error = try container.decodeIfPresent(String.self, forKey: .error)
            mode = try container.decodeIfPresent(DisplayMode.self, forKey: .mode)
            preferredSize = try container.decodeIfPresent(Size.self, forKey: .preferredSize)
            if let text = try container.decodeIfPresent(String.self, forKey: .date) {
                guard let date = RFC3339.date(from: text) else {
                    throw DecodingError.dataCorruptedError(forKey: .date, in: container, debugDescription: "expected an RFC 3339 time")
                }
                self.date = date
            }
            instance = try container.decodeIfPresent(String.self, forKey: .instance)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(extensionID, forKey: .extensionID)
            try container.encode(result, forKey: .result)
            try container.encode(snapshot?.decoded() ?? .null, forKey: .snapshot)
            try container.encode(version, forKey: .version)
            try container.encode(ageMs, forKey: .ageMs)
            try container.encode(stale, forKey: .stale)
            if expired { try container.encode(true, forKey: .expired) }
            try container.encodeIfPresent(error, forKey: .error)
            try container.encodeIfPresent(mode, forKey: .mode)
            try container.encodeIfPresent(preferredSize, forKey: .preferredSize)
            try container.encodeIfPresent(date.map(RFC3339.string(from:)), forKey: .date)
            try container.encodeIfPresent(instance, forKey: .instance)
        }

        /// The whole `snapshot` line, written directly around the pre-encoded snapshot:
        /// the daemon's hot path for cached pulls.
        func encodedLine() -> [UInt8] { encodedLineAndPerPullFields().line }

        /// The line, and where in it are the fields that differ between two answers of one
        /// unchanged snapshot (``SnapshotLineCache``).
        func encodedLineAndPerPullFields() -> (line: [UInt8], layout: PerPullFields) {
            var line = JSONLineWriter(capacity: 160 + extensionID.utf8.count + (snapshot?.bytes.count ?? 4))
            line.beginMessage(type: "snapshot")
            let idStart = line.count
            if let id { line.field("id", integer: id.rawValue) }
            let idField = idStart..<line.count
            let idDigits = id.map { line.count - JSONText.decimalDigitCount($0.rawValue)..<line.count }
            line.field("extension", string: extensionID)
            line.field("result", string: result.rawValue)
            let resultValue = line.count - result.rawValue.utf8.count - 2..<line.count
            if let snapshot { line.field("snapshot", json: snapshot.bytes) } else { line.nullField("snapshot") }
            line.field("version", integer: version)
            line.field("ageMs", integer: ageMs)
            let ageDigits = line.count - JSONText.decimalDigitCount(ageMs)..<line.count
            let flagsStart = line.count
            line.field("stale", bool: stale)
            if expired { line.field("expired", bool: true) }
            let flags = flagsStart..<line.count
            if let error { line.field("error", string: error) }
            if let mode { line.field("mode", string: mode.rawValue) }
            if let preferredSize {
                line.beginObject("preferredSize")
                line.field("width", integer: preferredSize.width)
                line.field("height", integer: preferredSize.height)
                line.endObject()
            }
            if let date { line.field("date", string: RFC3339.string(from: date)) }
            if let instance { line.field("instance", string: instance) }
            return (line.endMessage(), PerPullFields(id: idField, idDigits: idDigits, resultValue: resultValue, ageDigits: ageDigits, flags: flags))
        }

        /// Where a line's per-answer fields are: `,"id":…` (empty where it would go when
        /// absent) and its digits, the quoted `result`, the digits of `ageMs`, and
        /// `,"stale":…` with `,"expired":true` if set.
        struct PerPullFields {
            var id: Range<Int>
            var idDigits: Range<Int>?
            var resultValue: Range<Int>
            var ageDigits: Range<Int>
            var flags: Range<Int>
        }
    }

    /// `{"type":"completed","id":3,"items":[...]}`
    public struct Completed: Codable, Hashable, Sendable {
        public var id: RequestID
        public var items: [Item]

        /// Creates the value from its fields.
        public init(id: RequestID, items: [Item]) {
            self.id = id
            self.items = items
        }
    }

    /// `{"type":"extensionTerminated","extension":"...","reason":"idle"}`
    public struct ExtensionTerminated: Codable, Hashable, Sendable {
        public var extensionID: String
        public var reason: TerminationReason

        /// Creates the value from its fields.
        public init(extensionID: String, reason: TerminationReason) {
            self.extensionID = extensionID
            self.reason = reason
        }

        private enum CodingKeys: String, CodingKey {
            case extensionID = "extension", reason
        }
    }

    /// `{"type":"openURL","url":"weather://today","app":"com.example.weather"}`
    public struct OpenURL: Codable, Hashable, Sendable {
        public var url: String
        public var app: String

        /// Creates the value from its fields.
        public init(url: String, app: String) {
            self.url = url
            self.app = app
        }
    }

    /// `{"type":"error","id":2,"error":"unknown extension \"x\""}` — `id` is absent when
    /// the failed request had none or could not be parsed.
    public struct RequestError: Codable, Hashable, Sendable {
        public var id: RequestID?
        public var error: String

        /// Creates the value from its fields.
        public init(id: RequestID?, error: String) {
            self.id = id
            self.error = error
        }
    }
}

extension SupervisorToHost: WireMessageGroup {
    public init(type: String, decoder: any Decoder) throws(ProtocolError) {
        switch type {
        case "extensions": self = .extensions(try WireCoding.decodePayload(Extensions.self, of: type, from: decoder))
        case "snapshot": self = .snapshot(try WireCoding.decodePayload(Snapshot.self, of: type, from: decoder))
        case "completed": self = .completed(try WireCoding.decodePayload(Completed.self, of: type, from: decoder))
        case "extensionTerminated":
            self = .extensionTerminated(
                try WireCoding.decodePayload(ExtensionTerminated.self, of: type, from: decoder))
        case "openURL": self = .openURL(try WireCoding.decodePayload(OpenURL.self, of: type, from: decoder))
        case "openResult": self = .openResult(try WireCoding.decodePayload(OpenResult.self, of: type, from: decoder))
        case "error": self = .error(try WireCoding.decodePayload(RequestError.self, of: type, from: decoder))
        case "defaultsResult":
            self = .defaultsResult(try WireCoding.decodePayload(DefaultsResult.self, of: type, from: decoder))
        case "reloadResult": self = .reloadResult(try WireCoding.decodePayload(ReloadResult.self, of: type, from: decoder))
        case "assetResult": self = .assetResult(try WireCoding.decodePayload(AssetResult.self, of: type, from: decoder))
        case "hasContentChanged":
            self = .hasContentChanged(try WireCoding.decodePayload(HasContentChanged.self, of: type, from: decoder))
        case "enableResult": self = .enableResult(try WireCoding.decodePayload(ManageResult.self, of: type, from: decoder))
        case "addInstanceResult": self = .addInstanceResult(try WireCoding.decodePayload(ManageResult.self, of: type, from: decoder))
        case "removeInstanceResult":
            self = .removeInstanceResult(try WireCoding.decodePayload(ManageResult.self, of: type, from: decoder))
        case "arrangeResult": self = .arrangeResult(try WireCoding.decodePayload(ManageResult.self, of: type, from: decoder))
        default: throw .unknownType(type)
        }
    }

    public var type: String {
        switch self {
        case .extensions: "extensions"
        case .snapshot: "snapshot"
        case .completed: "completed"
        case .extensionTerminated: "extensionTerminated"
        case .openURL: "openURL"
        case .openResult: "openResult"
        case .error: "error"
        case .defaultsResult: "defaultsResult"
        case .reloadResult: "reloadResult"
        case .hasContentChanged: "hasContentChanged"
        case .assetResult: "assetResult"
        case .enableResult: "enableResult"
        case .addInstanceResult: "addInstanceResult"
        case .removeInstanceResult: "removeInstanceResult"
        case .arrangeResult: "arrangeResult"
        }
    }

    public func encodeFields(to encoder: any Encoder) throws {
        switch self {
        case .extensions(let fields): try fields.encode(to: encoder)
        case .snapshot(let fields): try fields.encode(to: encoder)
        case .completed(let fields): try fields.encode(to: encoder)
        case .extensionTerminated(let fields): try fields.encode(to: encoder)
        case .openURL(let fields): try fields.encode(to: encoder)
        case .openResult(let fields): try fields.encode(to: encoder)
        case .error(let fields): try fields.encode(to: encoder)
        case .defaultsResult(let fields): try fields.encode(to: encoder)
        case .reloadResult(let fields): try fields.encode(to: encoder)
        case .hasContentChanged(let fields): try fields.encode(to: encoder)
        case .assetResult(let fields): try fields.encode(to: encoder)
        case .enableResult(let fields), .addInstanceResult(let fields), .removeInstanceResult(let fields),
            .arrangeResult(let fields):
            try fields.encode(to: encoder)
        }
    }

    /// The message as one line of compact JSON, newline included. A `snapshot` is written
    /// around its pre-encoded payload without re-encoding it.
    public func encodedLine() -> [UInt8] {
        if case .snapshot(let snapshot) = self { return snapshot.encodedLine() }
        return WireCoding.encodeLine(Enveloped(message: self))
    }
}
