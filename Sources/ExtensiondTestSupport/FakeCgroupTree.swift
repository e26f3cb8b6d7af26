import Glibc

/// A directory tree of plain files standing in for a cgroup v2 hierarchy.
///
/// These machines have no v2 memory controller, so the v2 backend's file
/// operations are checked against files laid out as the kernel would; the
/// test plays the kernel's part (creating a new cgroup's control files).
/// Real v2 behaviour is for the Debian VM (`make vm-test`, tests/vm/).
public final class FakeCgroupTree {
    public let root: String

    /// Pids that cannot exist (above any pid_max), so a slip into a real
    /// `kill(2)` could never hit a process.
    public static let fakePids: [Int32] = [2_147_483_001, 2_147_483_002]

    public init(controllers: String = "cpu io memory pids") throws {
        var template = Array("/tmp/extensiond-fake-cgroup-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw FakeTreeError.cannotCreate }
        root = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        write("\(controllers)\n", to: "cgroup.controllers")
        write(Self.fakePids.map { "\($0)\n" }.joined(), to: "cgroup.procs")
        write("", to: "cgroup.subtree_control")
        for child in ["supervisor", "supervised", "supervised/hosts", "supervised/apps", "supervised/extensions"] {
            addCgroup(child)
        }
    }

    /// What the kernel creates with a new cgroup directory.
    public func addCgroup(_ name: String) {
        mkdir("\(root)/\(name)", 0o755)
        let files = [
            "cgroup.procs": "", "cgroup.threads": "", "cgroup.subtree_control": "", "cgroup.kill": "",
            "cgroup.events": "populated 0\nfrozen 0\n", "memory.max": "max\n", "memory.high": "max\n", "memory.low": "0\n",
            "memory.current": "0\n", "memory.peak": "0\n", "pids.max": "max\n", "memory.pressure": "",
            "cpu.max": "max 100000\n", "cpu.weight": "100\n",
            "memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n",
        ]
        for (file, content) in files {
            write(content, to: "\(name)/\(file)")
        }
    }

    public func write(_ content: String, to relativePath: String) {
        let fd = open("\(root)/\(relativePath)", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(content.utf8)
        _ = Glibc.write(fd, bytes, bytes.count)
    }

    public func read(_ relativePath: String) -> String? {
        readTextFile("\(root)/\(relativePath)")
    }

    deinit {
        Self.removeRecursively(root)
    }

    private static func removeRecursively(_ path: String) {
        if let directory = opendir(path) {
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
            for name in names { removeRecursively("\(path)/\(name)") }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

public enum FakeTreeError: Error {
    case cannotCreate
}
