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
        var children: [pid_t: [pid_t]] = [:]
        for pid in allPids() {
            if let entry = entry(of: pid) { children[entry.parent, default: []].append(pid) }
        }
        var found = Set<pid_t>()
        var pending = Array(roots)
        while let pid = pending.popLast() {
            for child in children[pid] ?? [] where !roots.contains(child) && found.insert(child).inserted {
                pending.append(child)
            }
        }
        return found
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
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let pid = pid_t(name) { pids.append(pid) }
        }
        return pids
    }
}
