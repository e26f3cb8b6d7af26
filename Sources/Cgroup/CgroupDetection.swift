import LinuxProcess

/// Finds the cgroup the daemon runs in and which backend serves it, from
/// `/proc/self/cgroup` and `/proc/self/mountinfo`.
///
/// v2 is chosen only when the unified hierarchy offers the memory controller
/// to the daemon's cgroup (on hybrid systems it usually offers none);
/// otherwise v1 with the memory hierarchy, plus the pids, freezer, cpu and cpuacct
/// hierarchies where mounted (below the daemon's own cgroup there; in a child named like a configured
/// root, or in the daemon's own child group).
enum CgroupDetection {
    /// Where a tree lives.
    enum Location: Equatable {
        case unified(root: String)
        case legacy(memoryRoot: String, pidsRoot: String?, cpuRoot: String? = nil, cpuacctRoot: String? = nil, freezerRoot: String? = nil)
    }

    /// The v1 controllers used besides memory, each where it is mounted.
    static let sideControllers = ["pids", "freezer", "cpu", "cpuacct"]

    /// A cgroup filesystem mount from mountinfo.
    struct Mount: Equatable {
        let mountPoint: String
        /// The directory of the hierarchy that is mounted (`/` unless in a namespace).
        let root: String
        let isUnified: Bool
        let controllers: [String]
    }

    /// Chooses the backend; `configuredRoot` replaces the daemon's own cgroup
    /// (of the unified or the memory hierarchy). On v1 without a configured root,
    /// `ownChild` names a child of the daemon's own cgroups (memory and pids) that
    /// holds the tree instead of them, so that daemons sharing a cgroup never share
    /// a tree. v2 ignores it: a v2 cgroup holding processes cannot give its children
    /// controllers, so there the daemon's cgroup must be delegated to it.
    static func locate(
        memberships: [CgroupMembership],
        mounts: [Mount],
        configuredRoot: String?,
        ownChild: String? = nil,
        controllersOf: (String) -> String?
    ) throws(CgroupError) -> Location {
        if let unified = mounts.first(where: \.isUnified),
            let membership = memberships.first(where: \.isUnified)
        {
            let root = configuredRoot ?? directory(of: membership.path, in: unified)
            let controllers = controllersOf("\(root)/cgroup.controllers") ?? ""
            if controllers.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("memory") {
                return .unified(root: root)
            }
        }
        guard let memory = legacyDirectory(of: "memory", memberships: memberships, mounts: mounts) else {
            throw .noMemoryController("neither the unified hierarchy offers memory nor is a v1 memory hierarchy mounted and joined")
        }
        // A configured root gets its own group in the other hierarchies too, named like it,
        // so that two daemons with different roots never share (or clean up) each other's groups.
        let child = configuredRoot.map { $0.split(separator: "/").last.map(String.init) } ?? ownChild
        let side = sideControllers.map { controller in
            legacyDirectory(of: controller, memberships: memberships, mounts: mounts).map { own in child.map { own + "/" + $0 } ?? own }
        }
        let memoryRoot = configuredRoot ?? (ownChild.map { memory + "/" + $0 } ?? memory)
        return .legacy(memoryRoot: memoryRoot, pidsRoot: side[0], cpuRoot: side[2], cpuacctRoot: side[3], freezerRoot: side[1])
    }

    /// The daemon's own v1 memory, pids, freezer, cpu and cpuacct cgroups (where it returns before
    /// removing a tree it lives in).
    static func legacyHome(memberships: [CgroupMembership], mounts: [Mount]) -> [String] {
        (["memory"] + sideControllers).compactMap { legacyDirectory(of: $0, memberships: memberships, mounts: mounts) }
    }

    /// The cgroup mounts listed in a mountinfo text.
    static func parseMounts(_ mountinfo: String) -> [Mount] {
        mountinfo.split(separator: "\n").compactMap { line in
            // "<id> <parent> <dev> <root> <mount point> <options> [optional...] - <type> <source> <super options>"
            let halves = line.split(separator: " - ", maxSplits: 1)
            guard halves.count == 2 else { return nil }
            let fields = halves[0].split(separator: " ")
            let tail = halves[1].split(separator: " ")
            guard fields.count >= 5, tail.count >= 3, tail[0] == "cgroup" || tail[0] == "cgroup2" else { return nil }
            return Mount(
                mountPoint: unescape(fields[4]),
                root: unescape(fields[3]),
                isUnified: tail[0] == "cgroup2",
                controllers: tail[2].split(separator: ",").map(String.init)
            )
        }
    }

    private static func legacyDirectory(of controller: String, memberships: [CgroupMembership], mounts: [Mount]) -> String? {
        guard let mount = mounts.first(where: { !$0.isUnified && $0.controllers.contains(controller) }),
            let membership = memberships.first(where: { $0.controllers.contains(controller) })
        else { return nil }
        return directory(of: membership.path, in: mount)
    }

    /// The directory of a cgroup path (from /proc/PID/cgroup) under a mount.
    static func directory(of path: String, in mount: Mount) -> String {
        var relative = Substring(path)
        if mount.root != "/", relative.hasPrefix(mount.root) {
            relative = relative.dropFirst(mount.root.count)
        }
        let trimmed = relative.drop(while: { $0 == "/" })
        return trimmed.isEmpty ? mount.mountPoint : "\(mount.mountPoint)/\(trimmed)"
    }

    /// mountinfo escapes space, tab, newline and backslash as `\ooo`.
    private static func unescape(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3,
                let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
