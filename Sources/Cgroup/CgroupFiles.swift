import CLinux
import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing cgroupfs files and directories, with errors naming the path.
enum CgroupFiles {
    static func read(_ path: String) throws(CgroupError) -> String {
        var length = 0
        guard let buffer = ext_read_file(path, &length) else {
            throw .systemCall("read", path: path, errno: errno)
        }
        defer { free(buffer) }
        return String(cString: buffer)
    }

    /// Control files take one value per write(2).
    static func write(_ value: String, to path: String) throws(CgroupError) {
        try write(value, to: AnchoredPath(path))
    }

    static func write(_ value: String, to path: AnchoredPath) throws(CgroupError) {
        let bytes = Array(value.utf8)
        guard ext_write_file_at(path.directory, path.relativePath, bytes, bytes.count) == 0 else {
            throw .systemCall("write \(value.debugDescription) to", path: path.path, errno: errno)
        }
    }

    /// A file holding one unsigned number, such as `memory.current`.
    static func readNumber(_ path: String) throws(CgroupError) -> UInt64 {
        let text = try read(path)
        guard let value = UInt64(text.trimmingASCIIWhitespace) else {
            throw .malformed(path: path, content: text, expected: "a number of bytes")
        }
        return value
    }

    /// The ids listed in a `cgroup.procs`, `cgroup.threads` or `tasks` file.
    static func readIDs(_ path: String) throws(CgroupError) -> [pid_t] {
        let text = try read(path)
        var pids: [pid_t] = []
        for line in text.split(separator: "\n") {
            guard let pid = pid_t(line) else {
                throw .malformed(path: path, content: text, expected: "one id per line")
            }
            pids.append(pid)
        }
        return pids
    }

    /// `key value` lines, as in `memory.events`, `cgroup.events` and `memory.oom_control`.
    static func readKeyedCounters(_ path: String) throws(CgroupError) -> [String: UInt64] {
        let text = try read(path)
        var counters: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let value = UInt64(fields[1]) else {
                throw .malformed(path: path, content: text, expected: "\"<key> <number>\" lines")
            }
            counters[String(fields[0])] = value
        }
        return counters
    }

    /// Creates a cgroup directory; an existing one is fine. Returns whether it was created.
    @discardableResult
    static func makeDirectory(_ path: String) throws(CgroupError) -> Bool {
        try makeDirectory(AnchoredPath(path))
    }

    @discardableResult
    static func makeDirectory(_ path: AnchoredPath) throws(CgroupError) -> Bool {
        if mkdirat(path.directory, path.relativePath, 0o755) == 0 { return true }
        guard errno == EEXIST else {
            throw .systemCall("mkdir", path: path.path, errno: errno)
        }
        return false
    }

    /// Removes a cgroup directory with any child cgroups, deepest first; a
    /// missing one is fine. Fails with EBUSY while processes remain.
    static func removeTree(_ path: String) throws(CgroupError) {
        for child in try subdirectories(of: path) {
            try removeTree("\(path)/\(child)")
        }
        guard rmdir(path) == 0 || errno == ENOENT else {
            throw .systemCall("rmdir", path: path, errno: errno)
        }
    }

    /// The names of the directories directly below `path` (child cgroups);
    /// none when `path` does not exist.
    static func subdirectories(of path: String) throws(CgroupError) -> [String] {
        guard let directory = opendir(path) else {
            if errno == ENOENT { return [] }
            throw .systemCall("opendir", path: path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            guard entry.pointee.d_type == DT_DIR else { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Every cgroup directory of the subtree at `path`, `path` included.
    static func tree(_ path: String) throws(CgroupError) -> [String] {
        var paths = [path]
        for child in try subdirectories(of: path) {
            paths += try tree("\(path)/\(child)")
        }
        return paths
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and newlines.
    var trimmingASCIIWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" }
        let text = Substring(self)
        guard let start = text.firstIndex(where: { !isSpace($0) }),
            let end = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return text[start...end]
    }
}
