import ExtensiondPolicy

/// The typed configuration of extensiond (DESIGN §5 "Config").
///
/// This module owns the config model, its parsing from TOML (one file plus drop-ins),
/// the `[defaults]` overlay and all validation that needs no kernel. It must not touch
/// the system: no cgroups, no processes, no sockets. Loading reads files and the current
/// directory (to resolve relative paths); everything else here is pure.

/// The whole, validated configuration: one file plus its drop-ins, merged.
public struct Configuration: Sendable, Equatable {
    /// The files read, in merge order: the main file, then its drop-ins by name.
    public var sources: [String]
    /// `[supervisor]`.
    public var supervisor: SupervisorSettings
    /// `[pressure]`.
    public var pressure: PressureSettings
    /// `[hosts.ID]`, sorted by id.
    public var hosts: [HostSpec]
    /// `[apps.ID]`, sorted by id.
    public var apps: [AppSpec]
    /// `[extensions.ID]` with `[defaults]` applied, sorted by id.
    public var extensions: [ExtensionSpec]
    /// The built-in type identifiers and those `[types]` declares.
    public var types: TypeHierarchy
    /// `[places.NAME]`, sorted by name: where widgets appear, and how large.
    public var places: [PlaceSpec] = []

    /// A configuration of the given parts; every part defaults to the built-in defaults.
    public init(
        supervisor: SupervisorSettings = .init(),
        pressure: PressureSettings = .init(),
        hosts: [HostSpec] = [],
        apps: [AppSpec] = [],
        extensions: [ExtensionSpec] = [],
        types: TypeHierarchy = TypeHierarchy(),
        sources: [String] = []
    ) {
        self.types = types
        self.sources = sources
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
    /// Where packages install their drop-ins (apps' manifests), beside the administrator's;
    /// read from the main file only.
    public var packageDropInDirectory: String = "/usr/lib/extensiond/extensiond.d"
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
    /// Where per-app uids and per-group gids come from (`"61000-61999"`).
    public var userRange: ClosedRange<UInt32> = 61_000...61_999
    /// Refuse to start a sandboxed process when the kernel lacks Landlock; `false`: start it
    /// with the parts of the sandbox that are available, and record an event.
    public var sandboxRequired: Bool = true
    /// Members of this group may run the reading commands of `control.sock`; `nil`: only root
    /// (and the admins).
    public var controlGroup: String?
    /// Members of this group may also run the changing commands; `nil`: only root.
    public var adminGroup: String?
    /// Peers of `host.sock` that are not supervised processes are accepted as hosts.
    public var externalHosts: Bool = true
    /// Free space in `state_dir` that making a bounded directory (`disk_max`) must leave,
    /// for the daemon's own files.
    public var stateReserve = ByteSize(64 << 20)
    /// Stdout and stderr bytes per second captured from each process (4 seconds' worth
    /// at once); what comes faster is dropped and counted.
    public var outputRate = ByteSize(1 << 20)
    /// How long the data and ids of an app removed from the config are kept, set aside,
    /// before they are purged.
    public var removedDataKeep: Duration = .seconds(30 * 86_400)

    /// The built-in defaults.
    public init() {}
}

/// `[pressure]`: when the kill policy starts to act.
public struct PressureSettings: Sendable, Equatable {
    /// Share of `memory_budget` whose crossing warns every running extension; `nil`: 75%,
    /// or 90% of `low` when that is less.
    public var warn: Share?
    /// Share of `memory_budget` above which idle extensions are killed.
    public var low: Share = Share(0.85)
    /// Share of `memory_budget` above which active extensions are killed too.
    public var critical: Share = Share(0.95)
    /// Optional system and subtree PSI trigger, independent of the budget.
    public var psi: PSITrigger?
    /// How long a `low` episode gives a suspended extension the trim asked to exit (from
    /// its `terminate`) before it kills it; `critical` kills at once.
    public var trimWait: Duration = .milliseconds(250)
    /// The range of `trim_wait`: a longer wait would not be relief.
    public static let trimWaits: ClosedRange<Duration> = .zero ... .seconds(5)

    /// The built-in defaults.
    public init() {}
}

/// How a supervised process is started; shared by hosts, apps and extensions.
public struct LaunchSpec: Sendable, Equatable {
    /// The program and its arguments. A relative program path (one with a `/` that does not
    /// start with `/`) is already resolved against the directory of the file that declared it;
    /// a bare name (no `/`) is kept as written.
    public var command: [String]
    /// The user to run as; `nil`: the daemon's user.
    public var user: String?
    /// The group to run as; `nil`: the user's primary group.
    public var group: String?
    /// Added to the daemon's environment.
    public var environment: [String: String] = [:]
    /// Absolute (relative paths are resolved like commands); `nil`: the daemon's.
    public var workingDirectory: String?
    /// Where stdout and stderr lines go; `nil`: `both` under systemd, `file` otherwise.
    public var output: OutputDestination?

    /// A launch of `command` with the daemon's user, environment and directory.
    public init(command: [String]) { self.command = command }
}

/// Per-process cgroup limits.
public struct ResourceLimits: Sendable, Equatable {
    /// Hard limit: the kernel OOM-kills inside the cgroup past it.
    public var memoryMax: ByteSize?
    /// Soft limit: throttling on v2 and a `memoryWarning` to extensions.
    public var memoryHigh: ByteSize?
    /// Protection from reclaim (v2 `memory.low`; hosts and apps only, nothing on v1).
    public var memoryLow: ByteSize?
    /// Maximum number of tasks in the cgroup.
    public var pidsMax: Int?
    /// CPU time the cgroup may use; `nil` or ``CPUQuota/unlimited``: no limit.
    public var cpuMax: CPUQuota?
    /// Its share of contended CPU against its siblings, 1 to 10000 (100: the kernel's default).
    public var cpuWeight: Int?

    /// The range of `cpu_weight` (cgroup v2's `cpu.weight`).
    public static let cpuWeights = 1...10_000
    /// What an extension gets unless its entry or `[defaults]` say otherwise: half a core,
    /// and half the weight of a host or app, which keep the kernel's defaults.
    public static let extensionDefaults = ResourceLimits(cpuMax: CPUQuota(percent: 50), cpuWeight: 50)

    /// Limits; `nil` leaves a limit unset.
    public init(
        memoryMax: ByteSize? = nil, memoryHigh: ByteSize? = nil, memoryLow: ByteSize? = nil, pidsMax: Int? = nil,
        cpuMax: CPUQuota? = nil, cpuWeight: Int? = nil
    ) {
        self.memoryMax = memoryMax
        self.memoryHigh = memoryHigh
        self.memoryLow = memoryLow
        self.pidsMax = pidsMax
        self.cpuMax = cpuMax
        self.cpuWeight = cpuWeight
    }
}

/// `[extensions.ID.sandbox]` and `[apps.ID.sandbox]`: the file-system and system-call
/// sandbox of docs/SECURITY.md.
public struct SandboxSettings: Sendable, Equatable {
    /// On by default for extensions, off for apps.
    public var enabled: Bool
    /// `false`: a network namespace of its own with loopback only.
    public var network: Bool = true
    /// Extra paths it may read (absolute).
    public var read: [String] = []
    /// Extra paths it may read and write (absolute).
    public var write: [String] = []

    /// A sandbox that is `enabled` or not, with the network and no extra paths.
    public init(enabled: Bool) { self.enabled = enabled }
}

/// `restart_*` of a host or app: crash restarts with full-jitter exponential backoff,
/// and when to give up (DESIGN §4).
public struct RestartSettings: Sendable, Equatable {
    /// The ceiling of the first restart delay.
    public var backoffBase: Duration = .seconds(1)
    /// The largest ceiling of any restart delay.
    public var backoffMax: Duration = .seconds(60)
    /// Failed starts in a row that are retried; one more makes the process `fatal`.
    public var retries: Int = 5

    /// The built-in defaults: about a second at first, at most a minute apart, 5 retries.
    public init() {}
}

/// `[hosts.ID]`: a process that displays extensions; never chosen by the pressure policy.
public struct HostSpec: Sendable, Equatable, Identifiable {
    /// The config table name; also the cgroup and file name.
    public var id: String
    /// How the process is started.
    public var launch: LaunchSpec
    /// Its cgroup limits.
    public var limits: ResourceLimits = .init()
    /// Started with the daemon (default true).
    public var autostart: Bool = true
    /// Grace period between SIGTERM and SIGKILL when the daemon stops it.
    public var stopTimeout: Duration = .seconds(2)
    /// How it is restarted after exiting on its own.
    public var restart: RestartSettings = .init()
    /// The extensions it may pull, subscribe to and perform; `nil`: all.
    public var extensions: [String]?
    /// It may enable widgets and add, remove and arrange instances for the user (the gallery).
    public var manage = false

    /// An entry with the built-in defaults for everything but identity and launch.
    public init(id: String, launch: LaunchSpec) {
        self.id = id
        self.launch = launch
    }
}

/// `[apps.ID]`: a containing app, owner of extensions, URL schemes and app groups.
public struct AppSpec: Sendable, Equatable, Identifiable {
    /// The config table name; also the cgroup and file name.
    public var id: String
    /// How the process is started.
    public var launch: LaunchSpec
    /// Its cgroup limits.
    public var limits: ResourceLimits = .init()
    /// URL schemes this app opens, lowercased (schemes are case-insensitive).
    public var urlSchemes: [String] = []
    /// App groups owned by this app and shared with its extensions only.
    public var groups: [String] = []
    /// The size of each of its group containers.
    public var diskMax = ByteSize(64 << 20)
    /// Started with the daemon (default false: apps launch on demand).
    public var autostart: Bool = false
    /// Grace period between SIGTERM and SIGKILL when the daemon stops it.
    public var stopTimeout: Duration = .seconds(2)
    /// How it is restarted after exiting on its own (autostarted apps only).
    public var restart: RestartSettings = .init()
    /// Its sandbox: off unless configured.
    public var sandbox = SandboxSettings(enabled: false)

    /// An entry with the built-in defaults for everything but identity and launch.
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
///
/// Its copies share one storage of its fields, replaced when a field is set: the daemon
/// holds each spec three times (the configuration, the process's definition, the
/// extension's record), and the fields take about 580 bytes (bench/README.md, "The
/// daemon's memory, again").
public struct ExtensionSpec: Sendable, Equatable, Identifiable {
    /// The config table name; also the cgroup and file name.
    public var id: String {
        get { storage.fields.id }
        set { fields.id = newValue }
    }
    /// The id of the owning app.
    public var app: String {
        get { storage.fields.app }
        set { fields.app = newValue }
    }
    /// The extension point it implements.
    public var point: ExtensionPoint {
        get { storage.fields.point }
        set { fields.point = newValue }
    }
    /// How the process is started.
    public var launch: LaunchSpec {
        get { storage.fields.launch }
        set { fields.launch = newValue }
    }
    /// Its cgroup limits.
    public var limits: ResourceLimits {
        get { storage.fields.limits }
        set { fields.limits = newValue }
    }
    /// The size of its data directory.
    public var diskMax: ByteSize {
        get { storage.fields.diskMax }
        set { fields.diskMax = newValue }
    }
    /// Lower is killed first within a band.
    public var priority: Int {
        get { storage.fields.priority }
        set { fields.priority = newValue }
    }
    /// The initial activation state; the persisted state wins once it exists.
    public var enabled: Bool {
        get { storage.fields.enabled }
        set { fields.enabled = newValue }
    }
    /// Unused this long, the extension is asked to terminate.
    public var idleExit: Duration {
        get { storage.fields.idleExit }
        set { fields.idleExit = newValue }
    }
    /// Unused this long, the extension is frozen (the cgroup freezer) until its next
    /// request; zero turns suspension off. Only below ``idleExit`` does it apply.
    public var suspendAfter: Duration {
        get { storage.fields.suspendAfter }
        set { fields.suspendAfter = newValue }
    }
    /// How long after launch `ready` must arrive.
    public var startTimeout: Duration {
        get { storage.fields.startTimeout }
        set { fields.startTimeout = newValue }
    }
    /// Grace period between `terminate`/SIGTERM and SIGKILL.
    public var stopTimeout: Duration {
        get { storage.fields.stopTimeout }
        set { fields.stopTimeout = newValue }
    }
    /// Throttling and scheduled refreshes.
    public var refresh: RefreshSettings {
        get { storage.fields.refresh }
        set { fields.refresh = newValue }
    }
    /// Action/share points: the maximum number of items accepted per type.
    public var activation: [String: Int] {
        get { storage.fields.activation }
        set { fields.activation = newValue }
    }
    /// Widgets: the display modes hosts may pull, each with its own snapshot (all by default).
    public var modes: [WidgetMode] {
        get { storage.fields.modes }
        set { fields.modes = newValue }
    }
    /// Widgets: the file of the Adaptive Card template their snapshots are the data of
    /// (absolute, resolved against the declaring file's directory).
    public var cardTemplate: String? {
        get { storage.fields.cardTemplate }
        set { fields.cardTemplate = newValue }
    }
    /// Its sandbox: on unless turned off.
    public var sandbox: SandboxSettings {
        get { storage.fields.sandbox }
        set { fields.sandbox = newValue }
    }
    /// Its name, description, preview and instance settings, for a gallery.
    public var gallery: WidgetGallery {
        get { storage.fields.gallery }
        set { fields.gallery = newValue }
    }

    /// An entry with the built-in defaults for everything but identity and launch.
    public init(id: String, app: String, point: ExtensionPoint, launch: LaunchSpec) {
        storage = Storage(Fields(id: id, app: app, point: point, launch: launch))
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    private var storage: Storage

    /// Setting one field makes a new storage: specs change only when a config is read.
    private var fields: Fields {
        get { storage.fields }
        set { storage = Storage(newValue) }
    }

    private final class Storage: Sendable {
        let fields: Fields

        init(_ fields: Fields) { self.fields = fields }
    }

    private struct Fields: Sendable, Equatable {
        var id: String
        var app: String
        var point: ExtensionPoint
        var launch: LaunchSpec
        var limits = ResourceLimits.extensionDefaults
        var diskMax = ByteSize(32 << 20)
        var priority: Int = 0
        var enabled: Bool = true
        var idleExit: Duration = .seconds(30)
        var suspendAfter: Duration = .seconds(10)
        var startTimeout: Duration = .seconds(5)
        var stopTimeout: Duration = .seconds(2)
        var refresh: RefreshSettings = .init()
        var activation: [String: Int] = [:]
        var modes: [WidgetMode] = WidgetMode.allCases
        var cardTemplate: String?
        var sandbox = SandboxSettings(enabled: true)
        var gallery = WidgetGallery()
    }
}

/// `[extensions.ID.refresh]`: DESIGN §4, defaults in brackets there.
public struct RefreshSettings: Sendable, Equatable {
    /// Time between scheduled refreshes.
    public var interval: Duration = .seconds(30 * 60)
    /// Scheduled refreshes never come closer than this.
    public var minInterval: Duration = .seconds(5 * 60)
    /// `nil`: 10% of `interval`, at most 5 minutes.
    public var jitter: Duration?
    /// `noData` in a row stretches the interval up to this.
    public var maxInterval: Duration = .seconds(4 * 3600)
    /// A pull within this long of the last update attempt is served from the snapshot.
    public var pullCooldown: Duration = .seconds(15)
    /// An update not answered within this counts as `failed` and the extension is killed.
    public var deadline: Duration = .seconds(10)
    /// Scheduled refreshes per 24 hours (token bucket rate).
    public var dailyBudget: Int = 48
    /// Token bucket capacity.
    public var budgetBurst: Int = 6
    /// First retry delay after `failed` (full-jitter exponential backoff).
    public var backoffBase: Duration = .seconds(30)
    /// Retry delay cap.
    public var backoffMax: Duration = .seconds(3600)

    /// The built-in defaults of DESIGN §4.
    public init() {}

    /// The spread actually applied to scheduled refreshes.
    public var effectiveJitter: Duration {
        jitter ?? min(interval / 10, .seconds(5 * 60))
    }
}
