#if canImport(Glibc)
import Glibc
#endif

/// Who is whose parent, from `/proc/*/stat`: finds a process's descendants wherever they
/// went. A process that moved itself into another cgroup is invisible to its cgroup's
/// listing, but stays a child of its parent until that parent exits.
public enum ProcessTree {
    /// The pids whose parent, grandparent… is one of `roots` (the roots excluded), as
    /// they are now. Processes that exit while the table is read are simply missing.
    public static func descendants(of roots: Set<pid_t>) -> Set<pid_t> {
        guard !roots.isEmpty else { return [] }
        if let found = walk(from: roots, children: children(of:)) { return found }
        var table: [pid_t: [pid_t]] = [:]
        for pid in allPids() {
            if let entry = entry(of: pid) { table[entry.parent, default: []].append(pid) }
        }
        return walk(from: roots) { table[$0] ?? [] } ?? []
    }

    /// Everything below `roots` by `children`; `nil` as soon as `children` says `nil`.
    private static func walk(from roots: Set<pid_t>, children: (pid_t) -> [pid_t]?) -> Set<pid_t>? {
        var found = Set<pid_t>()
        var pending = Array(roots)
        while let pid = pending.popLast() {
            guard let children = children(pid) else { return nil }
            for child in children where !roots.contains(child) && found.insert(child).inserted {
                pending.append(child)
            }
        }
        return found
    }

    /// The children of every thread of `pid`, from `/proc/PID/task/TID/children`: a few
    /// files per process of the family instead of every process's `stat` (the walk comes
    /// before a kill's signal). `[]` when `pid` is gone; `nil` when the kernel has no such
    /// files (built without `CONFIG_PROC_CHILDREN`): then every process's parent is read.
    static func children(of pid: pid_t) -> [pid_t]? {
        guard let tasks = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(tasks) }
        var children: [pid_t] = []
        while let entry = readdir(tasks) {
            guard let thread = pid_t(name(of: entry)) else { continue }
            let task = "/proc/\(pid)/task/\(thread)"
            do throws(ProcessError) {
                let listed = try readKernelFile(task + "/children").split { $0 == " " || $0 == "\n" }
                children += listed.compactMap { pid_t($0) }
            } catch {
                // A thread that exited meanwhile has no directory left; one still there
                // without the file means the kernel lists no children.
                if access(task, F_OK) == 0 { return nil }
            }
        }
        return children
    }

    /// The state and parent of one process, from `/proc/PID/stat`.
    public struct Entry: Equatable, Sendable {
        /// `R`, `S`, `D`, `Z` (exited, not reaped yet)…
        public var state: Character
        public var parent: pid_t

        /// Whether it still runs: neither a zombie nor dead.
        public var isRunning: Bool { state != "Z" && state != "X" }
    }

    /// The state and parent of `pid`, `nil` when it is gone.
    public static func entry(of pid: pid_t) -> Entry? {
        guard let text = try? readKernelFile("/proc/\(pid)/stat") else { return nil }
        return parse(stat: text)
    }

    /// The state and parent in the text of a `/proc/PID/stat` file: the command name in
    /// parentheses may contain spaces and parentheses, so fields count from the last `)`.
    public static func parse(stat text: String) -> Entry? {
        guard let close = text.utf8.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ", maxSplits: 3)
        guard fields.count >= 2, fields[0].count == 1, let state = fields[0].first, let parent = pid_t(fields[1]) else { return nil }
        return Entry(state: state, parent: parent)
    }

    private static func allPids() -> [pid_t] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var pids: [pid_t] = []
        while let entry = readdir(directory) {
            if let pid = pid_t(name(of: entry)) { pids.append(pid) }
        }
        return pids
    }

    private static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
