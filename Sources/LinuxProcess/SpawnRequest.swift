#if canImport(Glibc)
import Glibc
#endif

/// Everything needed to start one supervised process.
///
/// Names (user, group, a bare executable) are resolved before the fork, so the
/// child only runs system calls.
public struct SpawnRequest: Sendable, Equatable {
    /// How the child enters its cgroup before it execs.
    public enum CgroupPlacement: Sendable, Equatable {
        /// The child stays in the spawner's cgroup.
        case inherit
        /// cgroup v2: the child is created directly inside this cgroup directory
        /// (`clone3` with `CLONE_INTO_CGROUP`), so it never runs anywhere else.
        case cloneInto(directory: String)
        /// cgroup v1: the child, one thread, writes its pid to each of these `tasks`
        /// files (one per hierarchy, e.g. memory and pids) before exec. Their directories
        /// must stay open until ``Spawner/spawn(_:)`` returns.
        case joinBeforeExec(taskFiles: [AnchoredPath])
        /// The same, each file already open for writing (``OpenTaskFiles``, which keeps the
        /// descriptors open until ``Spawner/spawn(_:)`` returns): the child only writes.
        case joinOpened(taskFiles: [AnchoredPath], descriptors: [Int32])
    }

    /// A path, or a bare name searched in the request's `PATH` (or the default path).
    public var executable: String
    /// Arguments after `argv[0]`, which is `executable` as given.
    public var arguments: [String]
    /// The complete environment of the child; nothing is inherited.
    public var environment: [String: String]
    /// The child's working directory; `nil` keeps the spawner's.
    public var workingDirectory: String?
    /// The user to run as (name or numeric id); `nil` keeps the spawner's.
    public var user: String?
    /// The group to run as (name or numeric id); `nil` means the user's primary group.
    public var group: String?
    /// The cgroup the child starts in.
    public var cgroup: CgroupPlacement
    /// Written to `/proc/self/oom_score_adj` in the child; `nil` inherits.
    /// Raising needs no privilege; lowering needs CAP_SYS_RESOURCE.
    public var oomScoreAdjustment: Int32?
    /// A descriptor placed at fd 3 in the child (the extension socket).
    public var extensionSocket: Int32?
    /// The child's fd 1; `nil` is `/dev/null`.
    public var standardOutput: Int32?
    /// The child's fd 2; `nil` is `/dev/null`.
    public var standardError: Int32?
    /// Groups added to the user's supplementary groups (app groups).
    public var supplementaryGroups: [UInt32]
    /// The sandbox entered after the credentials change; `nil`: none.
    public var sandbox: SpawnSandbox?
    /// When the child runs as uid 0, it is the init of a new PID namespace: a root
    /// process can leave its cgroup, and the kernel still kills everything it started,
    /// wherever it went, when it dies. Inside, its pid is 1 and it ignores signals
    /// it has no handler for, SIGKILL aside.
    public var pidNamespaceWhenRoot: Bool

    /// Creates a request; every option defaults to "inherit" or "none".
    public init(
        executable: String,
        arguments: [String] = [],
        environment: [String: String] = [:],
        workingDirectory: String? = nil,
        user: String? = nil,
        group: String? = nil,
        cgroup: CgroupPlacement = .inherit,
        oomScoreAdjustment: Int32? = nil,
        extensionSocket: Int32? = nil,
        standardOutput: Int32? = nil,
        standardError: Int32? = nil,
        supplementaryGroups: [UInt32] = [],
        sandbox: SpawnSandbox? = nil,
        pidNamespaceWhenRoot: Bool = false
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.user = user
        self.group = group
        self.cgroup = cgroup
        self.oomScoreAdjustment = oomScoreAdjustment
        self.extensionSocket = extensionSocket
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.supplementaryGroups = supplementaryGroups
        self.sandbox = sandbox
        self.pidNamespaceWhenRoot = pidNamespaceWhenRoot
    }
}
