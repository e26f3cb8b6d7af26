import LinuxProcess
#if canImport(Glibc)
import Glibc
#endif

/// extensiond's cgroup subtree: `<root>/supervisor` for the daemon and
/// `<root>/{hosts,apps,extensions}/<id>` for each supervised process, on
/// whichever cgroup version the system provides.
public struct CgroupTree: Sendable {
    let backend: any CgroupBackend

    /// The leaf the daemon itself lives in on v2.
    static let supervisorName = "supervisor"

    /// A tree on the unified (v2) hierarchy rooted at `root`.
    public init(unifiedRoot root: String) {
        backend = UnifiedBackend(root: root)
    }

    /// A tree on v1 hierarchies: memory at `memoryRoot`, pids (optional) at `pidsRoot`.
    public init(memoryRoot: String, pidsRoot: String?) {
        backend = LegacyBackend(memoryRoot: memoryRoot, pidsRoot: pidsRoot)
    }

    /// The tree in the daemon's own cgroup, or at `configuredRoot` (an absolute
    /// directory of the unified or the v1 memory hierarchy), with the backend
    /// detected from `/proc/self/cgroup` and `/proc/self/mountinfo`.
    ///
    /// On v1 the pids groups live below the daemon's own pids cgroup; with a
    /// configured root, in a child of it named like the root's last component.
    public static func detect(configuredRoot: String? = nil) throws(CgroupError) -> CgroupTree {
        // Checked first, so that a wrong root leaves nothing created (say, in the pids hierarchy).
        if let configuredRoot {
            var info = stat()
            guard stat(configuredRoot + "/cgroup.procs", &info) == 0 else {
                throw .systemCall("use configured cgroup", path: configuredRoot, errno: errno)
            }
        }
        let memberships: [CgroupMembership]
        switch Result(catching: { () throws(ProcessError) in try CgroupMembership.read() }) {
        case .success(let read):
            memberships = read
        case .failure(.systemCall(let call, let path, let errno)):
            throw .systemCall(call, path: path, errno: errno)
        case .failure(.malformed(let path, let expected)):
            throw .malformed(path: path, content: (try? CgroupFiles.read(path)) ?? "", expected: expected)
        }
        let mounts = CgroupDetection.parseMounts(try CgroupFiles.read("/proc/self/mountinfo"))
        let location = try CgroupDetection.locate(
            memberships: memberships, mounts: mounts, configuredRoot: configuredRoot,
            controllersOf: { try? CgroupFiles.read($0) }
        )
        switch location {
        case .unified(let root): return CgroupTree(unifiedRoot: root)
        case let .legacy(memoryRoot, pidsRoot): return CgroupTree(memoryRoot: memoryRoot, pidsRoot: pidsRoot)
        }
    }

    /// The backend in use.
    public var version: CgroupVersion { backend.version }
    /// The root of the tree (its usage includes everything below it).
    public var root: ControlGroup { ControlGroup(name: "", backend: backend) }
    /// The daemon's own leaf.
    public var supervisor: ControlGroup { ControlGroup(name: Self.supervisorName, backend: backend) }

    /// Creates the supervisor leaf and the kind subtrees. On v2 this first
    /// moves every process of the root (the daemon) into `supervisor`, as the
    /// no-internal-processes rule requires, and enables the memory and pids
    /// controllers below the root. On v1 the daemon stays where it is.
    public func prepare() throws(CgroupError) {
        try backend.prepare(supervisor: Self.supervisorName, subtrees: CgroupKind.allCases.map(\.rawValue))
    }

    /// The group of `id` in `kind`'s subtree, created if it does not exist.
    public func group(_ kind: CgroupKind, id: String) throws(CgroupError) -> ControlGroup {
        try Self.validate(id)
        let group = ControlGroup(name: "\(kind.rawValue)/\(id)", backend: backend)
        for directory in group.directories {
            try CgroupFiles.makeDirectory(directory)
        }
        return group
    }

    /// Sets a hard limit on the whole tree (`nil` removes it).
    ///
    /// `memory_budget` itself is a policy value: the daemon enforces it by
    /// killing extensions when usage crosses the `pressure` watermarks. This
    /// limit is only the backstop for growth faster than the daemon can
    /// react; set it a little above the critical watermark (budget plus the
    /// daemon's own few MiB) so that the kernel OOM-kills inside the tree
    /// (where `oom_score_adj = 1000` points it at extensions) instead of
    /// letting the tree pressure the whole machine.
    public func setMemoryBackstop(_ bytes: UInt64?) throws(CgroupError) {
        try root.setMemoryMax(bytes)
    }

    /// Removes the empty `hosts`, `apps` and `extensions` subtrees at shutdown (and
    /// `supervisor` on v1, where the daemon never moved into it). Groups still in use
    /// are left alone; the next start's ``removeStaleGroups(timeout:)`` takes them.
    public func removeEmptySubtrees() {
        var names = CgroupKind.allCases.map(\.rawValue)
        if version == .v1 { names.append(Self.supervisorName) }
        for name in names {
            for directory in ControlGroup(name: name, backend: backend).directories {
                rmdir(directory)
            }
        }
    }

    /// Kills and removes every host, app and extension group left under the
    /// root, e.g. by a previous daemon that crashed; call before launching
    /// anything. Each group gets at most `timeout` to empty.
    public func removeStaleGroups(timeout: Duration = .seconds(1)) throws(CgroupError) -> [StaleGroup] {
        var cleaned: [StaleGroup] = []
        for kind in CgroupKind.allCases {
            var ids = Set<String>()
            for directory in ControlGroup(name: kind.rawValue, backend: backend).directories {
                ids.formUnion(try CgroupFiles.subdirectories(of: directory))
            }
            for id in ids.sorted() {
                let group = ControlGroup(name: "\(kind.rawValue)/\(id)", backend: backend)
                var killed: [pid_t] = []
                var failure: CgroupError?
                do throws(CgroupError) {
                    killed = try group.kill()
                    try group.destroy(timeout: timeout)
                } catch .systemCall(_, _, ENOENT) {
                    continue  // gone meanwhile: its owner removed it
                } catch {
                    failure = error
                }
                cleaned.append(StaleGroup(kind: kind, id: id, killedProcesses: killed, failure: failure))
            }
        }
        return cleaned
    }

    /// An id becomes one directory name: no `/`, NUL, `.` or `..`.
    private static func validate(_ id: String) throws(CgroupError) {
        let reason: String? =
            if id.isEmpty { "it is empty" }
            else if id == "." || id == ".." { "it is a relative directory name" }
            else if id.contains("/") { "it contains '/'" }
            else if id.utf8.contains(0) { "it contains a NUL byte" }
            else if id.utf8.count > 255 { "it is longer than 255 bytes" }
            else { nil }
        if let reason { throw .invalidIdentifier(id, reason: reason) }
    }
}
