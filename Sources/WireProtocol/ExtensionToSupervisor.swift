/// A message an extension sends to the supervisor on its fd 3 socket.
public enum ExtensionToSupervisor: Hashable, Sendable {
    /// `ready`: the first message, within `start_timeout`.
    case ready(Ready)
    /// `result`: the answer to the outstanding `update`.
    case result(Result)
    /// `complete`: the answer to `begin` (action and share points).
    case complete(Complete)
    /// `cancel`: ends `begin` with an error instead of items.
    case cancel(Cancel)
    /// `openURL`: asks to open the app that handles the URL; answered by `openURLResult`.
    case openURL(OpenURL)
    /// `setHasContent`: whether hosts should show the extension.
    case setHasContent(SetHasContent)
    /// `defaults`: a shared-defaults request; answered by `defaultsResult`.
    case defaults(Defaults)

    /// The protocol version this module speaks.
    public static let protocolVersion = 1

    /// `{"type":"ready","protocol":1}`
    public struct Ready: Codable, Hashable, Sendable {
        public var `protocol`: Int
        /// Creates the value from its fields.
        public init(protocol: Int = ExtensionToSupervisor.protocolVersion) { self.protocol = `protocol` }

        private enum CodingKeys: String, CodingKey {
            case `protocol`
        }

        public init(from decoder: any Decoder) throws {
            self.protocol = try decoder.container(keyedBy: CodingKeys.self).decodeWireInteger(Int.self, forKey: .protocol)
        }
    }

    /// `{"type":"result","id":7,"result":"newData","snapshot":{...},"reload":"atEnd"}`
    ///
    /// `snapshot` is required with `newData` and ignored otherwise; `error` optionally
    /// explains a `failed` result; `preferredSize` optionally goes with `newData` to hosts.
    public struct Result: Codable, Hashable, Sendable {
        public var id: RequestID
        public var result: UpdateOutcome
        /// With `newData`: the content hosts show.
        public var snapshot: JSONValue? {
            get { snapshotForm?.value }
            set { snapshotForm = newValue.map(SnapshotForm.tree) }
        }
        public var reload: ReloadHint?
        public var error: String?
        /// The size the content would like to be shown at (`preferredContentSize`).
        public var preferredSize: Size?
        /// With `newData`: later snapshots, each made current at its date (ascending, at
        /// most ``TimelineEntry/maxCount``).
        public var timeline: [TimelineEntry]?
        /// The largest display mode the widget offers now (WidgetKit's
        /// `widgetLargestAvailableDisplayMode`); kept until a later result says another.
        public var largestMode: DisplayMode?
        /// The snapshot as decoded: a tree, or the bytes ``ResultFastPath`` took from the line.
        private var snapshotForm: SnapshotForm?

        /// Creates the value from its fields.
        public init(
            id: RequestID, result: UpdateOutcome, snapshot: JSONValue? = nil, reload: ReloadHint? = nil,
            error: String? = nil, preferredSize: Size? = nil, timeline: [TimelineEntry]? = nil, largestMode: DisplayMode? = nil
        ) {
            self.largestMode = largestMode
            self.id = id
            self.result = result
            self.snapshotForm = snapshot.map(SnapshotForm.tree)
            self.reload = reload
            self.error = error
            self.preferredSize = preferredSize
            self.timeline = timeline
        }

        /// A result whose snapshot is already in its written form (``JSONValue/encoded()``)
        /// and is not an Adaptive Card.
        package init(
            id: RequestID, result: UpdateOutcome, encodedSnapshot: EncodedJSON?, reload: ReloadHint?, error: String?, preferredSize: Size?
        ) {
            self.init(id: id, result: result, reload: reload, error: error, preferredSize: preferredSize)
            snapshotForm = encodedSnapshot.map(SnapshotForm.bytes)
        }

        /// The snapshot in its written form: the bytes the line held when they were
        /// already in it, else encoded now.
        package var encodedSnapshot: EncodedJSON? { snapshotForm?.bytes }

        /// The snapshot's tree when it may be an Adaptive Card (whose shape the daemon
        /// checks): `nil` for one taken as bytes, which ``ResultFastPath`` takes only when
        /// it is not one.
        package var snapshotToCheck: JSONValue? {
            if case .tree(let value)? = snapshotForm { value } else { nil }
        }

        private enum SnapshotForm: Sendable {
            case tree(JSONValue)
            case bytes(EncodedJSON)

            var value: JSONValue {
                switch self {
                case .tree(let value): value
                // Bytes in written form always decode.
                case .bytes(let bytes): (try? bytes.decoded()) ?? .null
                }
            }

            var bytes: EncodedJSON {
                switch self {
                case .tree(let value): value.encoded()
                case .bytes(let bytes): bytes
                }
            }
        }

        private enum CodingKeys: String, CodingKey {
            case id, result, snapshot, reload, error, preferredSize, timeline, largestMode
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            result = try container.decode(UpdateOutcome.self, forKey: .result)
            if result == .newData {
                guard container.contains(.snapshot) else {
                    throw DecodingError.keyNotFound(
                        CodingKeys.snapshot,
                        .init(codingPath: container.codingPath, debugDescription: "required with newData"))
                }
                snapshot = try container.decode(JSONValue.self, forKey: .snapshot)
            }
            reload = try container.decodeIfPresent(ReloadHint.self, forKey: .reload)
            error = try container.decodeIfPresent(String.self, forKey: .error)
            preferredSize = try container.decodeIfPresent(Size.self, forKey: .preferredSize)
            if let preferredSize, !preferredSize.isDisplayable {
                throw DecodingError.dataCorruptedError(
                    forKey: .preferredSize, in: container,
                    debugDescription: "width and height must be in 0...\(Size.largestSide)")
            }
            if container.contains(.timeline) {
                guard result == .newData else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .timeline, in: container, debugDescription: "allowed with newData only")
                }
                timeline = try container.decodeTimeline(forKey: .timeline)
            }
            largestMode = try container.decodeIfPresent(DisplayMode.self, forKey: .largestMode)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(result, forKey: .result)
            switch snapshotForm {
            case .tree(let value)?: try container.encode(value, forKey: .snapshot)
            case .bytes(let bytes)?: try container.encode(bytes, forKey: .snapshot)
            case nil: break
            }
            try container.encodeIfPresent(reload, forKey: .reload)
            try container.encodeIfPresent(error, forKey: .error)
            try container.encodeIfPresent(preferredSize, forKey: .preferredSize)
            try container.encodeIfPresent(timeline, forKey: .timeline)
            try container.encodeIfPresent(largestMode, forKey: .largestMode)
        }

        /// Equal when the fields are, whichever form each snapshot was decoded in.
        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.id == rhs.id && lhs.result == rhs.result && lhs.snapshot == rhs.snapshot && lhs.reload == rhs.reload
                && lhs.error == rhs.error && lhs.preferredSize == rhs.preferredSize && lhs.timeline == rhs.timeline
                && lhs.largestMode == rhs.largestMode
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(result)
            hasher.combine(snapshot)
            hasher.combine(reload)
            hasher.combine(error)
            hasher.combine(preferredSize)
            hasher.combine(timeline)
            hasher.combine(largestMode)
        }
    }

    /// `{"type":"complete","id":3,"items":[...]}`
    public struct Complete: Codable, Hashable, Sendable {
        public var id: RequestID
        public var items: [Item]
        /// Creates the value from its fields.
        public init(id: RequestID, items: [Item]) {
            self.id = id
            self.items = items
        }
    }

    /// `{"type":"openURL","id":1,"url":"weather://today"}`
    public struct OpenURL: Codable, Hashable, Sendable {
        public var id: RequestID
        public var url: String
        /// Creates the value from its fields.
        public init(id: RequestID, url: String) {
            self.id = id
            self.url = url
        }
    }

    /// `{"type":"setHasContent","value":false}`
    public struct SetHasContent: Codable, Hashable, Sendable {
        public var value: Bool
        /// Creates the value from its fields.
        public init(value: Bool) { self.value = value }
    }

    /// `{"type":"defaults","id":2,"group":"group.demo","op":"set","key":"counter","value":3}`
    ///
    /// `key` is required except for `list`; `value` is required for `set`. The containing
    /// app sends the same message on `host.sock`. `group` is at most
    /// ``WireLimits/maxIdentifierBytes`` long, `key` ``WireLimits/maxDefaultsKeyBytes``.
    public struct Defaults: Codable, Hashable, Sendable {
        public var id: RequestID
        public var group: String
        public var op: DefaultsOperation
        public var key: String?
        public var value: JSONValue?

        /// Creates the value from its fields.
        public init(id: RequestID, group: String, op: DefaultsOperation, key: String? = nil, value: JSONValue? = nil) {
            self.id = id
            self.group = group
            self.op = op
            self.key = key
            self.value = value
        }

        private enum CodingKeys: String, CodingKey {
            case id, group, op, key, value
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            group = try container.decodeBoundedString(forKey: .group, maxBytes: WireLimits.maxIdentifierBytes)
            op = try container.decode(DefaultsOperation.self, forKey: .op)
            key =
                op == .list
                ? try container.decodeBoundedStringIfPresent(forKey: .key, maxBytes: WireLimits.maxDefaultsKeyBytes)
                : try container.decodeBoundedString(forKey: .key, maxBytes: WireLimits.maxDefaultsKeyBytes)
            if op == .set {
                guard container.contains(.value) else {
                    throw DecodingError.keyNotFound(
                        CodingKeys.value, .init(codingPath: container.codingPath, debugDescription: "required with set"))
                }
                value = try container.decode(JSONValue.self, forKey: .value)
            }
        }
    }
}

extension ExtensionToSupervisor: WireMessageGroup {
    /// Decodes one line (without its newline); a plain `result` takes a fast path.
    public static func decode(line: some Collection<UInt8>) throws(ProtocolError) -> Self {
        if let result = ResultFastPath.result(from: line) { return .result(result) }
        return try WireCoding.decodeLine(line, as: Self.self)
    }

    public init(type: String, decoder: any Decoder) throws(ProtocolError) {
        switch type {
        case "ready": self = .ready(try WireCoding.decodePayload(Ready.self, of: type, from: decoder))
        case "result": self = .result(try WireCoding.decodePayload(Result.self, of: type, from: decoder))
        case "complete": self = .complete(try WireCoding.decodePayload(Complete.self, of: type, from: decoder))
        case "cancel": self = .cancel(try WireCoding.decodePayload(Cancel.self, of: type, from: decoder))
        case "openURL": self = .openURL(try WireCoding.decodePayload(OpenURL.self, of: type, from: decoder))
        case "setHasContent":
            self = .setHasContent(try WireCoding.decodePayload(SetHasContent.self, of: type, from: decoder))
        case "defaults": self = .defaults(try WireCoding.decodePayload(Defaults.self, of: type, from: decoder))
        default: throw .unknownType(type)
        }
    }

    public var type: String {
        switch self {
        case .ready: "ready"
        case .result: "result"
        case .complete: "complete"
        case .cancel: "cancel"
        case .openURL: "openURL"
        case .setHasContent: "setHasContent"
        case .defaults: "defaults"
        }
    }

    public func encodeFields(to encoder: any Encoder) throws {
        switch self {
        case .ready(let fields): try fields.encode(to: encoder)
        case .result(let fields): try fields.encode(to: encoder)
        case .complete(let fields): try fields.encode(to: encoder)
        case .cancel(let fields): try fields.encode(to: encoder)
        case .openURL(let fields): try fields.encode(to: encoder)
        case .setHasContent(let fields): try fields.encode(to: encoder)
        case .defaults(let fields): try fields.encode(to: encoder)
        }
    }
}
