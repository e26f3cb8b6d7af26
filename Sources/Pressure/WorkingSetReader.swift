import Cgroup
import LinuxProcess

/// Reads the tree's ``WorkingSet`` through its files kept open and re-read with `pread`
/// (`CounterFile`): a reading on the pressure path is four or five files, and in the
/// emulated VM the reading is most of a kill's trigger → decision, which an open and a
/// close per file (a path lookup, kernfs's open) lengthened (bench/README.md, relief6).
/// A file that cannot be opened (`supervised` not there yet) is tried again next reading.
///
/// On v2, while the `supervised` group's usage is at or past its `memory.high` (the daemon's
/// throttle where the tree reaches `low`), the tree's usage counts whole: the kernel
/// reclaims there before it lets usage through, so the cache it has not dropped is cache it
/// cannot drop fast enough, and meanwhile it stalls whoever allocates. Without this, a
/// growing extension was held at the throttle, its working set that cache below `low`, for
/// up to 1.1 s before it became a victim (bench/README.md, "oom").
final class WorkingSetReader {
    private let tree: CgroupTree
    private var files: [String: CounterFile] = [:]

    init(tree: CgroupTree) {
        self.tree = tree
    }

    /// The usage and working set of the tree's root (the plain usage when `memory.stat`
    /// cannot be read); `nil` when even the usage cannot be read.
    ///
    /// The usage is read on both sides of `memory.stat` and the lower one counts: cache the
    /// kernel drops between the two files would otherwise count as working set (a host's
    /// file writes at the tree's hard limit made an idle extension a victim).
    func read() -> WorkingSet.Reading? {
        let root = tree.root
        guard let usage = number(root.memoryUsagePath) else { return nil }
        // At the throttle the usage counts whole: `memory.stat` (the dearest file) is not read.
        guard !(tree.supervised.map(isAtThrottle) ?? false), let stat = file(root.description + "/memory.stat").flatMap({ try? $0.contents() })
        else { return WorkingSet.Reading(usage: usage, workingSet: usage) }
        let usageAfter = number(root.memoryUsagePath) ?? usage
        return WorkingSet.reading(usage: usage, stat: String(decoding: stat, as: UTF8.self), usageAfter: usageAfter, version: root.version)
    }

    /// Whether `group`'s usage is at or past its `memory.high` (`false` without one, `max`,
    /// or when either cannot be read).
    private func isAtThrottle(_ group: ControlGroup) -> Bool {
        guard let high = number(group.memoryHighPath), let usage = number(group.memoryUsagePath) else { return false }
        return usage >= high
    }

    /// The file's first number; `nil` when it cannot be read or is no number (`max`).
    private func number(_ path: String) -> UInt64? {
        file(path).flatMap { try? $0.number() }
    }

    private func file(_ path: String) -> CounterFile? {
        if let file = files[path] { return file }
        let file = try? CounterFile(path: path)
        files[path] = file
        return file
    }
}
