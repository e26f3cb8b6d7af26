/// The control protocol between `supervisorctl` and the daemon (`control.sock`).
///
/// One JSON request per line from the client; one JSON response per line from the
/// daemon (several for following commands such as `tail -f`). This module owns the
/// message types and their encoding; it must not know how the daemon produces them.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The commands the daemon accepts on its control socket.
public enum ControlCommand: String, Codable, Sendable, CaseIterable {
    case status, stats, events, start, stop, restart, enable, disable
    case pull, refresh, perform, open, defaults, tail, reload, pressure, version
}

/// One request: a command, the names it applies to, and command-specific options.
public struct ControlRequest: Codable, Sendable, Equatable {
    public var command: ControlCommand
    public var names: [String]
    public var options: [String: String]

    public init(command: ControlCommand, names: [String] = [], options: [String: String] = [:]) {
        self.command = command
        self.names = names
        self.options = options
    }
}

/// One response. `ok` false carries `error`; the other fields belong to the command asked.
public struct ControlResponse: Codable, Sendable, Equatable {
    public var ok: Bool
    /// What went wrong, naming the input at fault.
    public var error: String?
    /// A human-readable line for commands without structured output.
    public var message: String?
    public var status: [ProcessStatus]?
    public var version: VersionInfo?
    public var events: [EventRecord]?
    /// Output lines (`tail`).
    public var lines: [String]?
    public var pull: PullReport?
    public var stats: StatsReport?
    public var pressure: PressureReport?
    /// Set on the last response of a stream, so the client knows to stop reading.
    public var done: Bool?

    public init(ok: Bool = true, error: String? = nil, message: String? = nil,
                status: [ProcessStatus]? = nil, version: VersionInfo? = nil,
                events: [EventRecord]? = nil, lines: [String]? = nil, pull: PullReport? = nil,
                stats: StatsReport? = nil, pressure: PressureReport? = nil, done: Bool? = nil) {
        self.ok = ok
        self.error = error
        self.message = message
        self.status = status
        self.version = version
        self.events = events
        self.lines = lines
        self.pull = pull
        self.stats = stats
        self.pressure = pressure
        self.done = done
    }

    /// A failed request.
    public static func failure(_ error: String) -> ControlResponse {
        ControlResponse(ok: false, error: error)
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

    public init(name: String, kind: ProcessKind, state: String) {
        self.name = name
        self.kind = kind
        self.state = state
    }
}

/// `supervisorctl version`: both sides' versions.
public struct VersionInfo: Codable, Sendable, Equatable {
    public var daemon: String
    public var protocolVersion: Int
    public var cgroupBackend: String?

    public init(daemon: String, protocolVersion: Int, cgroupBackend: String? = nil) {
        self.daemon = daemon
        self.protocolVersion = protocolVersion
        self.cgroupBackend = cgroupBackend
    }
}

/// The version of this build of extensiond and supervisorctl.
public let extensiondVersion = "0.1.0"
