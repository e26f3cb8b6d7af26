/// The control protocol between `supervisorctl` and the daemon (`control.sock`).
///
/// One JSON request per line from the client; one JSON response per line from the
/// daemon (several for following commands such as `tail -f`). This module owns the
/// message types and their encoding; it must not know how the daemon produces them.
import WireProtocol

/// The version of the answers' layout, `schema` in every answer (and every `--json`
/// output). Raised when a key is renamed or removed or its meaning changes; adding a
/// key keeps it.
public let controlSchemaVersion = 1

/// One answer. `ok` false carries `error` and `code`; the other fields belong to the
/// command asked and are `null` otherwise. Every key is always present.
public struct ControlResponse: Codable, CompleteKeys, Sendable, Equatable {
    public var schema: Int = controlSchemaVersion
    public var ok: Bool
    /// What went wrong, naming the input at fault.
    public var error: String?
    /// What kind of failure, for the client's exit code.
    public var code: ControlErrorCode?
    /// A human-readable line (or lines) for commands without structured output.
    public var message: String?
    public var status: [ProcessStatus]?
    public var version: VersionInfo?
    public var events: [EventRecord]?
    /// Output lines (`tail`, `maintail`, `perform`).
    public var lines: [String]?
    public var pull: PullReport?
    public var stats: StatsReport?
    public var pressure: PressureReport?
    /// `pid`: the process's pid (null when it is not running), or the daemon's.
    public var pid: Int32?
    /// `avail`: every name in the running config or the config file.
    public var available: [AvailableProcess]?
    /// `reread` and `update`: how the config file differs from the running config.
    public var changes: ConfigChanges?
    /// Set on the last answer of a stream, so the client knows to stop reading.
    public var done: Bool?

    public init(
        ok: Bool = true, error: String? = nil, code: ControlErrorCode? = nil, message: String? = nil,
        status: [ProcessStatus]? = nil, version: VersionInfo? = nil,
        events: [EventRecord]? = nil, lines: [String]? = nil, pull: PullReport? = nil,
        stats: StatsReport? = nil, pressure: PressureReport? = nil, pid: Int32? = nil,
        available: [AvailableProcess]? = nil, changes: ConfigChanges? = nil, done: Bool? = nil
    ) {
        self.ok = ok
        self.error = error
        self.code = code
        self.message = message
        self.status = status
        self.version = version
        self.events = events
        self.lines = lines
        self.pull = pull
        self.stats = stats
        self.pressure = pressure
        self.pid = pid
        self.available = available
        self.changes = changes
        self.done = done
    }

    /// A failed request.
    public static func failure(_ error: String, code: ControlErrorCode = .failed) -> ControlResponse {
        ControlResponse(ok: false, error: error, code: code)
    }
}

/// Why a request failed.
public enum ControlErrorCode: String, Codable, Sendable, CaseIterable {
    /// The request was not valid: not JSON, an unknown command, a field out of bounds.
    case badRequest
    /// A name matched no configured host, app or extension.
    case unknownName
    /// The command was understood but did not succeed (`ERROR (already started)`…).
    case failed
    /// The answer would exceed ``ControlLimits/answerBytes``.
    case tooLarge
    /// The peer may not run this command.
    case refused
}

/// One line of `supervisorctl avail`.
public struct AvailableProcess: Codable, CompleteKeys, Sendable, Equatable {
    public var name: String
    public var kind: ProcessKind
    /// In the running config; false for a name only the config file has (until `update`).
    public var inUse: Bool
    public var autostart: Bool

    public init(name: String, kind: ProcessKind, inUse: Bool, autostart: Bool) {
        self.name = name
        self.kind = kind
        self.inUse = inUse
        self.autostart = autostart
    }
}

/// The names the config file adds, changes and removes against the running config, and
/// the `[supervisor]` settings it changes that only a restart applies.
public struct ConfigChanges: Codable, CompleteKeys, Sendable, Equatable {
    public var added: [String]
    public var changed: [String]
    public var removed: [String]
    /// Keys such as `supervisor.runtime_dir`: changed in the file, still the old value in
    /// the running daemon until its next start.
    public var waitingForRestart: [String]

    public init(added: [String] = [], changed: [String] = [], removed: [String] = [], waitingForRestart: [String] = []) {
        self.added = added
        self.changed = changed
        self.removed = removed
        self.waitingForRestart = waitingForRestart
    }
}

/// The kinds of supervised process (DESIGN §2).
public enum ProcessKind: String, Codable, Sendable, CaseIterable {
    case host, app, `extension`
}

/// One line of `supervisorctl status`.
public struct ProcessStatus: Codable, Sendable, Equatable {
    public var name: String
    public var kind: ProcessKind
    /// Started with the daemon: `status` without names exits 3 when such a process is not running.
    public var autostart: Bool = false
    /// `stopped`, `starting`, `running`, `idle`, `backoff`, `exited` or `fatal`.
    public var state: String
    public var pid: Int32?
    public var uptimeMs: Int64?
    public var rssBytes: UInt64?
    public var memoryCurrentBytes: UInt64?
    public var memoryLimitBytes: UInt64?
    /// The last update result of an extension: `newData`, `noData` or `failed`.
    public var lastResult: String?
    public var lastUpdateAgeMs: Int64?
    public var updateLatencyP50Us: Int64?
    public var updateLatencyP99Us: Int64?
    /// Why the process is not running, when it failed (e.g. an exec error).
    public var error: String?
    /// Widgets: whether a host shows it (false: hosts report on it and none shows it).
    public var visible: Bool?

    public init(name: String, kind: ProcessKind, state: String) {
        self.name = name
        self.kind = kind
        self.state = state
    }

    /// Every key, `null` included, like ``CompleteKeys``, but written out: `status` encodes
    /// one per process, and the reflection ``CompleteKeys`` uses cost most of its time. The
    /// optional fields go through the container's own methods for their types, not the
    /// generic `encode` (a dynamic cast and a nested encoder per field).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(kind.rawValue, forKey: .kind)
        try container.encode(autostart, forKey: .autostart)
        try container.encode(state, forKey: .state)
        try container.encodeOrNull(pid.map(Int64.init), forKey: .pid)
        try container.encodeOrNull(uptimeMs, forKey: .uptimeMs)
        try container.encodeOrNull(rssBytes, forKey: .rssBytes)
        try container.encodeOrNull(memoryCurrentBytes, forKey: .memoryCurrentBytes)
        try container.encodeOrNull(memoryLimitBytes, forKey: .memoryLimitBytes)
        try container.encodeOrNull(lastResult, forKey: .lastResult)
        try container.encodeOrNull(lastUpdateAgeMs, forKey: .lastUpdateAgeMs)
        try container.encodeOrNull(updateLatencyP50Us, forKey: .updateLatencyP50Us)
        try container.encodeOrNull(updateLatencyP99Us, forKey: .updateLatencyP99Us)
        try container.encodeOrNull(error, forKey: .error)
        try container.encodeOrNull(visible, forKey: .visible)
    }
}

extension KeyedEncodingContainer {
    /// `value`, or `null` for `nil`, each through the container's method for its type.
    fileprivate mutating func encodeOrNull(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    fileprivate mutating func encodeOrNull(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    fileprivate mutating func encodeOrNull(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    fileprivate mutating func encodeOrNull(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}

/// `supervisorctl version`: both sides' versions.
public struct VersionInfo: Codable, CompleteKeys, Sendable, Equatable {
    public var daemon: String
    /// supervisorctl's own version, filled in by supervisorctl (null from the daemon).
    public var client: String?
    public var protocolVersion: Int
    public var cgroupBackend: String?
    /// Who supervised processes run as and how they are sandboxed, in words, such as
    /// "per-app users from 61000-61999; Landlock ABI 7".
    public var isolation: String?

    public init(daemon: String, client: String? = nil, protocolVersion: Int, cgroupBackend: String? = nil, isolation: String? = nil) {
        self.daemon = daemon
        self.client = client
        self.protocolVersion = protocolVersion
        self.cgroupBackend = cgroupBackend
        self.isolation = isolation
    }
}

/// The version of this build of extensiond and supervisorctl.
public let extensiondVersion = "0.1.0"
