#if canImport(Glibc)
import Glibc
#endif

/// A throw-away cgroup v1 memory cgroup (and pids, freezer, cpu and cpuacct cgroups of the
/// same name, where mounted) below the test process's own cgroups, under a hard memory limit, so that
/// tests run real processes in real cgroups without pressuring the machine.
///
/// Everything inside is killed and every directory below it removed by
/// ``remove()``, which runs at the latest when the sandbox is released, so a
/// failing test still cleans up. Sandboxes left by a test process that died
/// are removed when the next sandbox is made.
public final class CgroupSandbox {
    /// The sandbox's directory in the v1 memory hierarchy.
    public let memoryDirectory: String
    /// The sandbox's directory in the v1 pids hierarchy, when it is mounted.
    public let pidsDirectory: String?
    /// The sandbox's directory in the v1 freezer hierarchy, when it is mounted (a daemon
    /// given ``memoryDirectory`` as its root puts its freezer groups here).
    public let freezerDirectory: String?
    /// Its directories in the cpu and cpuacct hierarchies, where a daemon with this sandbox
    /// as its root puts its groups.
    private let cpuDirectories: [String]
    /// The sandbox's directory in the v1 cpu hierarchy, when it is mounted.
    public var cpuDirectory: String? { cpuDirectories.first { $0.split(separator: "/").contains { $0.split(separator: ",").contains("cpu") } } }
    /// Every directory but the memory one.
    public var otherDirectories: [String] { [pidsDirectory, freezerDirectory].compactMap { $0 } + cpuDirectories }
    private var removed = false

    private static let namePrefix = "extensiond-test-"

    /// Creates a uniquely named sandbox limited to `memoryLimit` bytes.
    public init(memoryLimit: UInt64 = 512 << 20) throws(CgroupSandboxError) {
        let memoryParent = try Self.ownDirectory(controller: "memory")
        let pidsParent = try? Self.ownDirectory(controller: "pids")
        // Resolved: where cpu and cpuacct share a hierarchy, both names lead to it.
        let cpuParents = Set(
            ["cpu", "cpuacct"].compactMap { try? Self.ownDirectory(controller: $0) }.compactMap { path in
                realpath(path, nil).map { resolved in
                    defer { free(resolved) }; return String(cString: resolved)
                }
            }
        ).sorted()
        let freezerParent = try? Self.ownDirectory(controller: "freezer")
        Self.removeAbandonedSandboxes(in: [memoryParent, pidsParent, freezerParent].compactMap { $0 } + cpuParents)

        let name = "\(Self.namePrefix)\(getpid())-\(UInt64.random(in: 0 ... .max))"
        memoryDirectory = "\(memoryParent)/\(name)"
        pidsDirectory = pidsParent.map { "\($0)/\(name)" }
        freezerDirectory = freezerParent.map { "\($0)/\(name)" }
        cpuDirectories = cpuParents.map { "\($0)/\(name)" }
        for directory in [memoryDirectory] + otherDirectories where mkdir(directory, 0o755) != 0 {
            let error = errno
            remove()
            throw CgroupSandboxError("mkdir \(directory)", errno: error)
        }
        do {
            try Self.write("\(memoryLimit)", to: "\(memoryDirectory)/memory.limit_in_bytes")
        } catch {
            remove()
            throw error
        }
    }

    /// Kills every process in the sandbox and removes its cgroups; safe to call twice.
    public func remove() {
        guard !removed else { return }
        removed = true
        for directory in [memoryDirectory] + otherDirectories {
            Self.destroy(directory)
        }
    }

    deinit {
        remove()
    }

    // MARK: Helpers (standalone: the sandbox must not depend on the code it tests)

    /// `<mount>/<own path>` of the test process in `controller`'s v1 hierarchy.
    private static func ownDirectory(controller: String) throws(CgroupSandboxError) -> String {
        let text = try read("/proc/self/cgroup")
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[1].split(separator: ",").contains(Substring(controller)) else { continue }
            let path = fields[2] == "/" ? "" : String(fields[2])
            return "/sys/fs/cgroup/\(controller)\(path)"
        }
        throw CgroupSandboxError("find the \(controller) cgroup in /proc/self/cgroup (is the v1 \(controller) controller mounted?)", errno: ENOENT)
    }

    /// Sandboxes named after a test process that no longer exists.
    private static func removeAbandonedSandboxes(in parents: [String]) {
        for parent in parents {
            for name in subdirectories(of: parent) where name.hasPrefix(namePrefix) {
                let owner = name.dropFirst(namePrefix.count).split(separator: "-").first.flatMap { pid_t($0) }
                if let owner, Glibc.kill(owner, 0) != 0, errno == ESRCH {
                    destroy("\(parent)/\(name)")
                }
            }
        }
    }

    /// Kills everything in the subtree (bounded), then removes it deepest first. A frozen
    /// v1 task dies only once thawed: a freezer subtree is thawed first.
    private static func destroy(_ directory: String) {
        let cgroups = subtree(directory)
        for cgroup in cgroups { try? write("THAWED", to: "\(cgroup)/freezer.state") }
        for _ in 0..<2000 {
            let pids = cgroups.flatMap { (try? read("\($0)/cgroup.procs"))?.split(separator: "\n").compactMap { pid_t($0) } ?? [] }
            if pids.isEmpty { break }
            for pid in pids { _ = Glibc.kill(pid, SIGKILL) }
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&pause, nil)
        }
        for cgroup in cgroups.reversed() {
            rmdir(cgroup)
        }
    }

    private static func subtree(_ directory: String) -> [String] {
        [directory] + subdirectories(of: directory).flatMap { subtree("\(directory)/\($0)") }
    }

    private static func subdirectories(of path: String) -> [String] {
        guard let handle = opendir(path) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            guard entry.pointee.d_type == DT_DIR else { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func read(_ path: String) throws(CgroupSandboxError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CgroupSandboxError("open \(path)", errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw CgroupSandboxError("read \(path)", errno: errno) }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[..<count]
        }
    }

    private static func write(_ value: String, to path: String) throws(CgroupSandboxError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CgroupSandboxError("open \(path)", errno: errno) }
        defer { close(fd) }
        let bytes = Array(value.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count else {
            throw CgroupSandboxError("write \(value) to \(path)", errno: errno)
        }
    }
}

/// Why a ``CgroupSandbox`` could not be made.
public struct CgroupSandboxError: Error, CustomStringConvertible {
    /// The failed action and its reason.
    public let description: String

    init(_ action: String, errno: Int32) {
        description = "cgroup sandbox: \(action): \(String(cString: strerror(errno)))"
    }
}
