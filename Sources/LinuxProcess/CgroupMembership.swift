#if canImport(Glibc)
import Glibc
#endif

/// One line of `/proc/PID/cgroup`: the cgroup a process belongs to in one hierarchy.
public struct CgroupMembership: Equatable, Sendable {
    /// The hierarchy id; 0 is the unified (v2) hierarchy.
    public let hierarchyID: Int
    /// The v1 controllers of the hierarchy (`["memory"]`, `["name=systemd"]`); empty for v2.
    public let controllers: [String]
    /// The cgroup's path from the hierarchy's root, starting with `/`.
    public let path: String

    /// Creates a membership.
    public init(hierarchyID: Int, controllers: [String], path: String) {
        self.hierarchyID = hierarchyID
        self.controllers = controllers
        self.path = path
    }

    /// Whether this is the unified (v2) hierarchy.
    public var isUnified: Bool { hierarchyID == 0 && controllers.isEmpty }

    /// The cgroups of `pid` (`nil`: this process).
    public static func read(pid: pid_t? = nil) throws(ProcessError) -> [CgroupMembership] {
        let path = "/proc/\(pid.map(String.init) ?? "self")/cgroup"
        return try parse(readKernelFile(path), path: path)
    }

    /// Parses the text of a `/proc/PID/cgroup` file; `path` names it in errors.
    public static func parse(_ text: String, path: String) throws(ProcessError) -> [CgroupMembership] {
        var memberships: [CgroupMembership] = []
        for line in text.split(separator: "\n") {
            // The path may itself contain ':'.
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let id = Int(fields[0]), fields[2].hasPrefix("/") else {
                throw .malformed(path: path, expected: "lines \"<id>:<controllers>:/<path>\", found \(String(line).debugDescription)")
            }
            let controllers = fields[1].split(separator: ",").map(String.init)
            memberships.append(CgroupMembership(hierarchyID: id, controllers: controllers, path: String(fields[2])))
        }
        return memberships
    }
}
