/// The typed configuration of extensiond (DESIGN §5 "Config").
///
/// This module owns the config model, its parsing from TOML and its validation.
/// It must not touch the system: no cgroups, no processes, no sockets.
/// Loading reads files; everything else here is pure.

/// The whole, validated configuration: one file plus its drop-ins, merged.
public struct Configuration: Sendable, Equatable {
    public var supervisor: SupervisorSettings
    public var pressure: PressureSettings
    public var hosts: [HostSpec]
    public var apps: [AppSpec]
    public var extensions: [ExtensionSpec]

    public init(
        supervisor: SupervisorSettings = .init(),
        pressure: PressureSettings = .init(),
        hosts: [HostSpec] = [],
        apps: [AppSpec] = [],
        extensions: [ExtensionSpec] = []
    ) {
        self.supervisor = supervisor
        self.pressure = pressure
        self.hosts = hosts
        self.apps = apps
        self.extensions = extensions
    }
}

/// `[supervisor]`: where the daemon keeps its sockets and state, and its memory budget.
public struct SupervisorSettings: Sendable, Equatable {
    /// Holds `control.sock` and `host.sock`.
    public var runtimeDirectory: String = "/run/extensiond"
    /// Holds the enabled set, snapshots, budgets and group containers.
    public var stateDirectory: String = "/var/lib/extensiond"
    /// Total memory that hosts, apps and extensions may use together; `nil`: unlimited.
    public var memoryBudget: ByteSize?
    /// The cgroup to run the tree in; `nil`: the cgroup the daemon runs in.
    public var cgroup: String?
    /// Optional Prometheus endpoint, `host:port`.
    public var metricsListen: String?
    /// Each process's captured output is rotated at this size…
    public var logMaxSize: ByteSize = ByteSize(1 << 20)
    /// …keeping this many files (the live one included).
    public var logFiles: Int = 3

    public init() {}
}

/// `[pressure]`: when the kill policy starts to act.
public struct PressureSettings: Sendable, Equatable {
    public var low: Share = Share(0.85)
    public var critical: Share = Share(0.95)
    public var psi: PSITrigger?

    public init() {}
}

/// A PSI trigger as the kernel takes it: `some 150ms 2s`.
public struct PSITrigger: Sendable, Equatable {
    public enum Kind: String, Sendable { case some, full }
    public var kind: Kind
    public var stall: Duration
    public var window: Duration

    public init(kind: Kind, stall: Duration, window: Duration) {
        self.kind = kind
        self.stall = stall
        self.window = window
    }

    /// The string written to a `*.pressure` file, e.g. `some 150000 2000000`.
    public var kernelString: String {
        "\(kind.rawValue) \(stall.microseconds) \(window.microseconds)"
    }
}

/// How a supervised process is started; shared by hosts, apps and extensions.
public struct LaunchSpec: Sendable, Equatable {
    public var command: [String]
    public var user: String?
    public var group: String?
    public var environment: [String: String] = [:]
    public var workingDirectory: String?

    public init(command: [String]) { self.command = command }
}

/// Per-process cgroup limits.
public struct ResourceLimits: Sendable, Equatable {
    /// Hard limit: the kernel OOM-kills inside the cgroup past it.
    public var memoryMax: ByteSize?
    /// Soft limit: throttling on v2 and a `memoryWarning` to extensions.
    public var memoryHigh: ByteSize?
    public var pidsMax: Int?

    public init(memoryMax: ByteSize? = nil, memoryHigh: ByteSize? = nil, pidsMax: Int? = nil) {
        self.memoryMax = memoryMax
        self.memoryHigh = memoryHigh
        self.pidsMax = pidsMax
    }
}

/// `[hosts.ID]`: a process that displays extensions; never chosen by the pressure policy.
public struct HostSpec: Sendable, Equatable, Identifiable {
    public var id: String
    public var launch: LaunchSpec
    public var limits: ResourceLimits = .init()
    /// Started with the daemon (default true).
    public var autostart: Bool = true

    public init(id: String, launch: LaunchSpec) {
        self.id = id
        self.launch = launch
    }
}

/// `[apps.ID]`: a containing app, owner of extensions, URL schemes and app groups.
public struct AppSpec: Sendable, Equatable, Identifiable {
    public var id: String
    public var launch: LaunchSpec
    public var limits: ResourceLimits = .init()
    public var urlSchemes: [String] = []
    public var groups: [String] = []
    /// Started with the daemon (default false: apps launch on demand).
    public var autostart: Bool = false

    public init(id: String, launch: LaunchSpec) {
        self.id = id
        self.launch = launch
    }
}

/// The extension points of DESIGN §2.
public enum ExtensionPoint: String, Sendable, Equatable, CaseIterable {
    case widget, action, share
}

/// `[extensions.ID]`: a plug-in process launched on demand.
public struct ExtensionSpec: Sendable, Equatable, Identifiable {
    public var id: String
    /// The id of the owning app.
    public var app: String
    public var point: ExtensionPoint
    public var launch: LaunchSpec
    public var limits: ResourceLimits = .init()
    /// Lower is killed first within a band.
    public var priority: Int = 0
    /// The initial activation state; the persisted state wins once it exists.
    public var enabled: Bool = true
    public var idleExit: Duration = .seconds(30)
    /// How long after launch `ready` must arrive.
    public var startTimeout: Duration = .seconds(5)
    /// Grace period between `terminate`/SIGTERM and SIGKILL.
    public var stopTimeout: Duration = .seconds(2)
    public var refresh: RefreshSettings = .init()
    /// Action/share points: the maximum number of items accepted per type.
    public var activation: [String: Int] = [:]

    public init(id: String, app: String, point: ExtensionPoint, launch: LaunchSpec) {
        self.id = id
        self.app = app
        self.point = point
        self.launch = launch
    }
}

/// `[extensions.ID.refresh]`: DESIGN §4, defaults in brackets there.
public struct RefreshSettings: Sendable, Equatable {
    public var interval: Duration = .seconds(30 * 60)
    public var minInterval: Duration = .seconds(5 * 60)
    /// `nil`: 10% of `interval`, at most 5 minutes.
    public var jitter: Duration?
    public var maxInterval: Duration = .seconds(4 * 3600)
    public var pullCooldown: Duration = .seconds(15)
    public var deadline: Duration = .seconds(10)
    public var dailyBudget: Int = 48
    public var budgetBurst: Int = 6
    public var backoffBase: Duration = .seconds(30)
    public var backoffMax: Duration = .seconds(3600)

    public init() {}

    /// The spread actually applied to scheduled refreshes.
    public var effectiveJitter: Duration {
        jitter ?? min(interval / 10, .seconds(5 * 60))
    }
}

extension Duration {
    /// Whole microseconds, as the kernel's PSI trigger format wants them.
    public var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
