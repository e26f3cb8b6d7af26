import WireProtocol

/// The commands the daemon accepts on its control socket: the `command` field of a request.
public enum ControlCommand: String, Codable, Sendable, CaseIterable {
    case status, stats, events, start, stop, restart, signal, pid, avail, clear
    case enable, disable, pull, refresh, perform, open, defaults
    case tail, maintail, reload, reread, update, pressure, version, purge
}

/// One request on `control.sock`: `{"command":"tail","name":"w1","lines":20,"stream":"stderr","follow":false}`.
///
/// Each command has its own typed fields (docs/CLI.md, "Control protocol"). Decoding
/// checks every field against ``ControlLimits`` and names the field at fault, so the
/// daemon only ever sees requests it can serve.
public enum ControlRequest: Hashable, Sendable {
    /// Names may be globs (`com.example.*`) or `APP:*` (an app and its extensions);
    /// no names, or `all`, means every process (but see ``NameSelection/required``).
    case status(NameSelection)
    case stats(NameSelection)
    case start(NameSelection)
    case stop(NameSelection)
    case restart(NameSelection)
    /// Empties the captured output of the named processes.
    case clear(NameSelection)
    case enable(NameSelection)
    case disable(NameSelection)
    case refresh(NameSelection)
    /// Removes at once the data and ids kept of apps removed from the config.
    case purge(NameSelection)
    case signal(SignalRequest)
    case pid(PidRequest)
    case tail(TailRequest)
    /// The daemon's recent events.
    case events(LogRequest)
    /// The daemon's own log lines.
    case maintail(LogRequest)
    case pull(PullRequest)
    case perform(PerformRequest)
    case open(OpenRequest)
    case defaults(DefaultsRequest)
    /// Every configured name, with its kind and whether it is in use.
    case avail
    case reload
    /// What `update` would add, change and remove.
    case reread
    /// Applies the config file, restarting only what changed.
    case update
    case pressure
    case version

    /// The request's `command`.
    public var command: ControlCommand {
        switch self {
        case .status: .status
        case .stats: .stats
        case .start: .start
        case .stop: .stop
        case .restart: .restart
        case .clear: .clear
        case .enable: .enable
        case .disable: .disable
        case .refresh: .refresh
        case .purge: .purge
        case .signal: .signal
        case .pid: .pid
        case .tail: .tail
        case .events: .events
        case .maintail: .maintail
        case .pull: .pull
        case .perform: .perform
        case .open: .open
        case .defaults: .defaults
        case .avail: .avail
        case .reload: .reload
        case .reread: .reread
        case .update: .update
        case .pressure: .pressure
        case .version: .version
        }
    }

    /// Checks every field against ``ControlLimits``; the error names the command and field.
    public func validate() throws(ControlDecodingError) {
        let check = FieldCheck(command: command)
        switch self {
        case .status(let selection), .stats(let selection):
            try selection.validate(check, required: false)
        case .start(let selection), .stop(let selection), .restart(let selection), .clear(let selection),
            .enable(let selection), .disable(let selection), .refresh(let selection), .purge(let selection):
            try selection.validate(check, required: true)
        case .signal(let request): try request.validate(check)
        case .pid(let request): try request.validate(check)
        case .tail(let request): try request.validate(check)
        case .events(let request), .maintail(let request): try request.validate(check)
        case .pull(let request): try request.validate(check)
        case .perform(let request): try request.validate(check)
        case .open(let request): try request.validate(check)
        case .defaults(let request): try request.validate(check)
        case .avail, .reload, .reread, .update, .pressure, .version: break
        }
    }
}

// MARK: - Fields

/// `{"names":["w1","com.example.*"]}`.
public struct NameSelection: Codable, Hashable, Sendable {
    public var names: [String]

    public init(_ names: [String] = []) { self.names = names }

    /// `required`: the command acts on processes and needs at least one name (or `all`).
    func validate(_ check: FieldCheck, required: Bool) throws(ControlDecodingError) {
        if required && names.isEmpty { throw check.failure("names", "needs at least one name, or all") }
        try check.names(names, field: "names")
    }
}

/// `{"signal":"HUP","names":["panel"]}`: a signal by name (`HUP`, `SIGHUP`) or number.
public struct SignalRequest: Codable, Hashable, Sendable {
    public var signal: String
    public var names: [String]

    public init(signal: String, names: [String]) {
        self.signal = signal
        self.names = names
    }

    func validate(_ check: FieldCheck) throws(ControlDecodingError) {
        guard SignalName.number(signal) != nil else {
            throw check.failure(
                "signal", "'\(check.clip(signal))' is not a signal name (\(SignalName.all.map(\.name).joined(separator: ", "))) or number 1...64")
        }
        if names.isEmpty { throw check.failure("names", "needs at least one name, or all") }
        try check.names(names, field: "names")
    }
}

/// `{"name":"panel"}`, or `{"name":null}` for the daemon's own pid.
public struct PidRequest: Codable, Hashable, Sendable {
    public var name: String?

    public init(name: String? = nil) { self.name = name }

    func validate(_ check: FieldCheck) throws(ControlDecodingError) {
        if let name { try check.name(name, field: "name") }
    }
}

/// Which captured stream `tail` reads.
public enum OutputStream: String, Codable, Hashable, Sendable, CaseIterable {
    case stdout, stderr
}

/// `{"name":"w1","lines":20,"stream":"stderr","follow":false}`; `stream` null means both, interleaved.
public struct TailRequest: Codable, Hashable, Sendable {
    public var name: String
    public var lines: Int
    public var stream: OutputStream?
    public var follow: Bool

    public init(name: String, lines: Int = 20, stream: OutputStream? = nil, follow: Bool = false) {
        self.name = name
        self.lines = lines
        self.stream = stream
        self.follow = follow
    }

    func validate(_ check: FieldCheck) throws(ControlDecodingError) {
        try check.name(name, field: "name")
        try check.range(lines, ControlLimits.tailLines, field: "lines")
    }
}

/// `{"lines":50,"follow":true}`: the last `lines` entries, then (with `follow`) each new one.
public struct LogRequest: Codable, Hashable, Sendable {
    public var lines: Int
    public var follow: Bool

    public init(lines: Int, follow: Bool = false) {
        self.lines = lines
        self.follow = follow
    }

    func validate(_ check: FieldCheck) throws(ControlDecodingError) {
        try check.range(lines, ControlLimits.logLines, field: "lines")
    }
}

/// `{"name":"w1","mode":"compact","width":320,"height":160}`; width and height default to 320×160.
public struct PullRequest: Codable, Hashable, Sendable {
    public var name: String
    public var mode: DisplayMode
    public var width: Int?
    public var height: Int?

    public init(name: String, mode: DisplayMode = .compact, width: Int? = nil, height: Int? = nil) {
        self.name = name
        self.mode = mode
        self.width = width
        self.height = height
    }

    func validate(_ check: FieldCheck) throws(ControlDecodingError) {
        try check.name(name, field: "name")
        if let width { try check.range(width, ControlLimits.pixels, field: "width") }
        if let height { try check.range(height, ControlLimits.pixels, field: "height") }
    }
}

/// `{"name":"com.example.resize","items":[{"type":"public.image","path":"/tmp/a.png"}]}`.
public struct PerformRequest: Codable, Hashable, Sendable {
    public var name: String
    public var items: [Item]

    public init(name: String, items: [Item]) {
        self.name = name
        self.items = items
    }

    func validate(_ check: FieldCheck) throws(ControlDecodingError) {
        try check.name(name, field: "name")
        try check.range(items.count, ControlLimits.items, field: "items", what: "items")
        for (index, item) in items.enumerated() {
            try check.name(item.type, field: "items[\(index)].type")
            if case .path(let path) = item.content {
                try check.text(path, ControlLimits.pathBytes, field: "items[\(index)].path")
            }
        }
    }
}

/// `{"url":"weather://today"}`; whether it is a URL an app handles is the daemon's answer.
public struct OpenRequest: Codable, Hashable, Sendable {
    public var url: String

    public init(url: String) { self.url = url }

    func validate(_ check: FieldCheck) throws(ControlDecodingError) {
        try check.text(url, ControlLimits.pathBytes, field: "url")
    }
}

/// `{"group":"group.demo","operation":"set","key":"count","value":42}`.
public struct DefaultsRequest: Codable, Hashable, Sendable {
    public var group: String
    public var operation: DefaultsOperation
    public var key: String?
    public var value: JSONValue?

    public init(group: String, operation: DefaultsOperation, key: String? = nil, value: JSONValue? = nil) {
        self.group = group
        self.operation = operation
        self.key = key
        self.value = value
    }

    func validate(_ check: FieldCheck) throws(ControlDecodingError) {
        try check.name(group, field: "group")
        if let key { try check.name(key, field: "key") }
        switch operation {
        case .list:
            if key != nil { throw check.failure("key", "list takes no key") }
        case .get, .remove:
            guard key != nil else { throw check.failure("key", "\(operation.rawValue) needs a key") }
            if value != nil { throw check.failure("value", "\(operation.rawValue) takes no value") }
        case .set:
            guard key != nil else { throw check.failure("key", "set needs a key") }
            guard value != nil else { throw check.failure("value", "set needs a value") }
        }
    }
}

// MARK: - Coding

extension ControlRequest: Codable {
    private enum CommandKey: String, CodingKey { case command }

    /// Reads `command`, then that command's fields from the same object, then checks them.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.container(keyedBy: CommandKey.self).decode(String.self, forKey: .command)
        guard let command = ControlCommand(rawValue: name) else {
            throw ControlDecodingError(
                message: "unknown command '\(FieldCheck.clip(name))'; the commands are "
                    + ControlCommand.allCases.map(\.rawValue).joined(separator: ", "))
        }
        switch command {
        case .status: self = .status(try NameSelection(from: decoder))
        case .stats: self = .stats(try NameSelection(from: decoder))
        case .start: self = .start(try NameSelection(from: decoder))
        case .stop: self = .stop(try NameSelection(from: decoder))
        case .restart: self = .restart(try NameSelection(from: decoder))
        case .clear: self = .clear(try NameSelection(from: decoder))
        case .enable: self = .enable(try NameSelection(from: decoder))
        case .disable: self = .disable(try NameSelection(from: decoder))
        case .refresh: self = .refresh(try NameSelection(from: decoder))
        case .purge: self = .purge(try NameSelection(from: decoder))
        case .signal: self = .signal(try SignalRequest(from: decoder))
        case .pid: self = .pid(try PidRequest(from: decoder))
        case .tail: self = .tail(try TailRequest(from: decoder))
        case .events: self = .events(try LogRequest(from: decoder))
        case .maintail: self = .maintail(try LogRequest(from: decoder))
        case .pull: self = .pull(try PullRequest(from: decoder))
        case .perform: self = .perform(try PerformRequest(from: decoder))
        case .open: self = .open(try OpenRequest(from: decoder))
        case .defaults: self = .defaults(try DefaultsRequest(from: decoder))
        case .avail: self = .avail
        case .reload: self = .reload
        case .reread: self = .reread
        case .update: self = .update
        case .pressure: self = .pressure
        case .version: self = .version
        }
        try validate()
    }

    /// Writes `command` and the command's fields into one object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CommandKey.self)
        try container.encode(command, forKey: .command)
        switch self {
        case .status(let fields), .stats(let fields), .start(let fields), .stop(let fields), .restart(let fields),
            .clear(let fields), .enable(let fields), .disable(let fields), .refresh(let fields), .purge(let fields):
            try fields.encode(to: encoder)
        case .signal(let fields): try fields.encode(to: encoder)
        case .pid(let fields): try fields.encode(to: encoder)
        case .tail(let fields): try fields.encode(to: encoder)
        case .events(let fields), .maintail(let fields): try fields.encode(to: encoder)
        case .pull(let fields): try fields.encode(to: encoder)
        case .perform(let fields): try fields.encode(to: encoder)
        case .open(let fields): try fields.encode(to: encoder)
        case .defaults(let fields): try fields.encode(to: encoder)
        case .avail, .reload, .reread, .update, .pressure, .version: break
        }
    }
}
