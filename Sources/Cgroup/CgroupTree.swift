import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

/// extensiond's cgroup subtree: `<root>/supervisor` for the daemon and, for each
/// supervised process, `<root>/supervised/{hosts,apps,extensions}/<id>` on v2 or
/// `<root>/{hosts,apps,extensions}/<id>` on v1.
public struct CgroupTree: Sendable {
    let backend: any CgroupBackend
    /// The daemon's own cgroups, where ``release()`` moves it back to (v1).
    private var home: [String] = []
    /// Directories made for this tree alone (a daemon's own child group, the pids group of
    /// a configured root), removed by ``release()`` after the subtrees.
    private var madeRoots: [String] = []

    /// The leaf the daemon itself lives in on v2.
    static let supervisorName = "supervisor"
    /// v2: the group above the kind subtrees, which holds every supervised process but not
    /// the daemon, so that the kernel's throttle at the low watermark never stalls the
    /// daemon that must relieve it.
    static let supervisedName = "supervised"

    /// A tree on the unified (v2) hierarchy rooted at `root`.
    public init(unifiedRoot root: String) {
        backend = UnifiedBackend(root: root)
    }

    /// A tree on v1 hierarchies: memory at `memoryRoot`, pids, cpu, cpuacct and freezer
    /// (each optional, cpu and cpuacct possibly one) at the others.
    public init(memoryRoot: String, pidsRoot: String?, cpuRoot: String? = nil, cpuacctRoot: String? = nil, freezerRoot: String? = nil) {
        backend = LegacyBackend(memoryRoot: memoryRoot, pidsRoot: pidsRoot, cpuRoot: cpuRoot, cpuacctRoot: cpuacctRoot, freezerRoot: freezerRoot)
    }

    /// The tree in the daemon's own cgroup, or at `configuredRoot` (an absolute
    /// directory of the unified or the v1 memory hierarchy), or on v1 in `ownChild`, a
    /// child of the daemon's own cgroups named for this daemon (see
    /// ``childName(runtimeDirectory:)``), with the backend detected from
    /// `/proc/self/cgroup` and `/proc/self/mountinfo`.
    ///
    /// On v1 the pids and freezer groups live below the daemon's own cgroups there; with
    /// a configured root, in a child of them named like the root's last component.
    public static func detect(configuredRoot: String? = nil, ownChild: String? = nil) throws(CgroupError) -> CgroupTree {
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
        if let ownChild { try validate(ownChild) }
        let location = try CgroupDetection.locate(
            memberships: memberships, mounts: mounts, configuredRoot: configuredRoot, ownChild: ownChild,
            controllersOf: { try? CgroupFiles.read($0) }
        )
        switch location {
        case .unified(let root):
            return CgroupTree(unifiedRoot: root)
        case let .legacy(memoryRoot, pidsRoot, cpuRoot, cpuacctRoot, detectedFreezer):
            // CPU limits and the freezer (suspension) are optional: a daemon that may not make
            // groups there (not root, not delegated) runs without them rather than not at all.
            let writable = { (root: String?) in root.flatMap { isWritable($0) ? $0 : nil } }
            let (cpuRoot, cpuacctRoot, freezerRoot) = (writable(cpuRoot), writable(cpuacctRoot), writable(detectedFreezer))
            var tree = CgroupTree(
                memoryRoot: memoryRoot, pidsRoot: pidsRoot, cpuRoot: cpuRoot, cpuacctRoot: cpuacctRoot,
                freezerRoot: freezerRoot)
            tree.home = CgroupDetection.legacyHome(memberships: memberships, mounts: mounts)
            var made = Set<String>()
            tree.madeRoots = ((configuredRoot == nil ? [memoryRoot] : []) + [pidsRoot, freezerRoot, cpuRoot, cpuacctRoot].compactMap { $0 })
                .filter { made.insert($0).inserted }
            tree.madeRoots.removeAll { tree.home.contains($0) }
            return tree
        }
    }

    /// Whether the caller may make or fill `directory`: it is writable, or it does not
    /// exist and its parent is.
    private static func isWritable(_ directory: String) -> Bool {
        if access(directory, W_OK) == 0 { return true }
        guard errno == ENOENT, let slash = directory.lastIndex(of: "/") else { return false }
        return access(String(directory[..<slash]), W_OK) == 0
    }

    /// The name of the child group that holds a daemon's tree when its own cgroup was
    /// not delegated to it: `extensiond@` and the runtime directory escaped as systemd
    /// escapes paths (`/run/x-1` becomes `extensiond@run-x\x2d1`). One daemon per runtime
    /// directory (its lock) makes it one daemon per group.
    public static func childName(runtimeDirectory: String) -> String {
        let path = runtimeDirectory.split(separator: "/").joined(separator: "/")
        var name = "extensiond@"
        for (index, byte) in path.utf8.enumerated() {
            let keep =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                || (byte == UInt8(ascii: ".") && index > 0)
            if byte == UInt8(ascii: "/") {
                name += "-"
            } else if keep {
                name.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                name += (byte < 0x10 ? "\\x0" : "\\x") + String(byte, radix: 16)
            }
        }
        return name
    }

    /// The backend in use.
    public var version: CgroupVersion { backend.version }
    /// The root of the tree (its usage includes everything below it).
    public var root: ControlGroup { ControlGroup(name: "", backend: backend) }
    /// The daemon's own leaf.
    public var supervisor: ControlGroup { ControlGroup(name: Self.supervisorName, backend: backend) }
    /// The subtree holding every group of `kind` (`hosts`, `apps`, `extensions`).
    public func subtree(_ kind: CgroupKind) -> ControlGroup { ControlGroup(name: name(of: kind), backend: backend) }
    /// v2: the group holding every subtree but not the daemon (``supervisedName``), where the
    /// tree's throttle goes; `nil` on v1, which has no throttle.
    public var supervised: ControlGroup? {
        version == .v2 ? ControlGroup(name: Self.supervisedName, backend: backend) : nil
    }

    /// The path of `kind`'s subtree below the root.
    private func name(of kind: CgroupKind) -> String {
        version == .v2 ? "\(Self.supervisedName)/\(kind.rawValue)" : kind.rawValue
    }

    /// The groups ``prepare()`` makes below the root besides `supervisor`, parents first.
    private var subtreeNames: [String] {
        (version == .v2 ? [Self.supervisedName] : []) + CgroupKind.allCases.map(name(of:))
    }

    /// Creates the supervisor leaf and the kind subtrees (on v2 below `supervised`). On v2
    /// this first moves every process of the root (the daemon) into `supervisor`, as the
    /// no-internal-processes rule requires, and enables the memory and pids
    /// controllers below the root. On v1 the daemon stays where it is.
    public func prepare() throws(CgroupError) {
        try backend.prepare(supervisor: Self.supervisorName, subtrees: subtreeNames)
        // Extensions launch on demand, again and again; hosts and apps walk whole paths.
        backend.holdOpen(name(of: .extensions))
    }

    /// The group of `id` in `kind`'s subtree, created if it does not exist
    /// (``ControlGroup/isNew`` says whether its run directories were, and
    /// ``ControlGroup/reusesKept`` whether the others were there from an earlier run).
    /// `keptExist`: the caller knows the others are there (kept, or made ahead), and only
    /// the run directories are made (a `mkdir` that fails with EEXIST still walks and locks).
    public func group(_ kind: CgroupKind, id: String, keptExist: Bool = false) throws(CgroupError) -> ControlGroup {
        try Self.validate(id)
        let name = "\(name(of: kind))/\(id)"
        let run = backend.runDirectories(of: name)
        var (runMade, keptMade) = (true, !keptExist)
        for directory in backend.directories(of: name) {
            if run.contains(directory) {
                let made = try CgroupFiles.makeDirectory(backend.anchored(directory))
                runMade = runMade && made
            } else if !keptExist {
                let made = try CgroupFiles.makeDirectory(backend.anchored(directory))
                keptMade = keptMade && made
            }
        }
        return ControlGroup(name: name, backend: backend, isNew: runMade, reusesKept: !keptMade)
    }

    /// The directories of `id`'s group that outlive its runs (v1: pids, freezer, cpu,
    /// cpuacct; none on v2), made ahead of its first run with `limits` in them; its run
    /// directories (memory) are left for the run. Returns whether they were all made
    /// now and hold `limits`: `false` when there are none, or when some were there already
    /// (their limits are not known, and the run writes them all).
    public func makeKeptDirectories(_ kind: CgroupKind, id: String, limits: CgroupLimits) throws(CgroupError) -> Bool {
        try Self.validate(id)
        let name = "\(name(of: kind))/\(id)"
        let run = backend.runDirectories(of: name)
        let kept = backend.directories(of: name).filter { !run.contains($0) }
        var allMade = !kept.isEmpty
        for directory in kept {
            if !(try CgroupFiles.makeDirectory(backend.anchored(directory))) { allMade = false }
        }
        guard allMade else { return false }
        var keptLimits = limits
        (keptLimits.memoryMax, keptLimits.memoryHigh, keptLimits.memoryLow) = (nil, nil, nil)
        try ControlGroup(name: name, backend: backend, isNew: true).apply(keptLimits)
        return true
    }

    /// The group of `id` in `kind`'s subtree, as it is (nothing made).
    public func existingGroup(_ kind: CgroupKind, id: String) -> ControlGroup {
        ControlGroup(name: "\(name(of: kind))/\(id)", backend: backend)
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

    /// Makes the tree the calling daemon's: refuses it while another process is in its
    /// `supervisor` leaf (another extensiond owns it), prepares it (``prepare()``) and on
    /// v1 moves the caller into that leaf too (on v2 ``prepare()`` did). Its membership
    /// is the owner mark the kernel keeps: it ends when the daemon exits, however it
    /// exits, so a tree whose leaf is empty has no owner and its groups are stale.
    public func claim() throws(CgroupError) {
        try checkNoOtherOwner()
        try prepare()
        guard version == .v1 else { return }
        let own = getpid()
        for directory in supervisor.directories {
            try CgroupFiles.write("\(own)", to: directory + "/cgroup.procs")
        }
        do throws(CgroupError) {
            try checkNoOtherOwner()
        } catch {
            returnHome()
            throw error
        }
    }

    private func checkNoOtherOwner() throws(CgroupError) {
        let own = getpid()
        let members: [pid_t]
        do throws(CgroupError) {
            members = try supervisor.processes()
        } catch .systemCall(_, _, ENOENT) {
            return  // a new tree
        }
        let others = members.filter { $0 != own }
        guard others.isEmpty else { throw .inUse(path: supervisor.description, processes: others) }
    }

    /// Undoes ``claim()`` at a clean stop: moves the daemon back to its own cgroups (v1),
    /// removes the empty `hosts`, `apps` and `extensions` subtrees (and `supervised` on v2),
    /// `supervisor` on v1 and the groups made for this tree alone. Groups still in use are
    /// left alone; the next start's ``removeStaleGroups(timeout:)`` takes them.
    public func release() {
        var names = Array(subtreeNames.reversed())
        if version == .v1 {
            returnHome()
            names.append(Self.supervisorName)
        }
        for name in names {
            for directory in ControlGroup(name: name, backend: backend).directories {
                rmdir(directory)
            }
        }
        for directory in madeRoots.reversed() {
            rmdir(directory)
        }
        backend.closeHeldDirectories()
    }

    private func returnHome() {
        for directory in home {
            try? CgroupFiles.write("\(getpid())", to: directory + "/cgroup.procs")
        }
    }

    /// Kills and removes every host, app and extension group left under the
    /// root, e.g. by a previous daemon that crashed; call before launching
    /// anything. Each group gets at most `timeout` to empty.
    public func removeStaleGroups(timeout: Duration = .seconds(1)) throws(CgroupError) -> [StaleGroup] {
        var cleaned: [StaleGroup] = []
        for kind in CgroupKind.allCases {
            var ids = Set<String>()
            for directory in subtree(kind).directories {
                ids.formUnion(try CgroupFiles.subdirectories(of: directory))
            }
            for id in ids.sorted() {
                let group = existingGroup(kind, id: id)
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
            if id.isEmpty {
                "it is empty"
            } else if id == "." || id == ".." {
                "it is a relative directory name"
            } else if id.contains("/") {
                "it contains '/'"
            } else if id.utf8.contains(0) {
                "it contains a NUL byte"
            } else if id.utf8.count > 255 {
                "it is longer than 255 bytes"
            } else {
                nil
            }
        if let reason { throw .invalidIdentifier(id, reason: reason) }
    }
}

/// The directory holding `path`.
private func parent(of path: String) -> String {
    String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
}
