import CLinux
import LinuxProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Directories of a tree held open (v1: each hierarchy's `extensions`),
/// from which the paths of the groups below them are walked (``AnchoredPath``): a launch
/// makes its groups, writes their limits and joins them in two components each instead of
/// the ten or so of a path from `/`.
///
/// Closed by ``closeAll()`` when the tree is released; a path anchored before then must
/// be used before then.
final class OpenDirectories: Sendable {
    private let descriptors = Mutex<[String: Int32]>([:])

    /// Holds `directory` open from now on. One that cannot be opened is left out: its
    /// paths are walked from `/`, as before.
    func hold(_ directory: String) {
        let fd = ext_open_directory_path(directory)
        guard fd >= 0 else { return }
        let replaced = descriptors.withLock { $0.updateValue(fd, forKey: directory) }
        if let replaced { close(replaced) }
    }

    func closeAll() {
        let held = descriptors.withLock { held in
            defer { held.removeAll() }
            return Array(held.values)
        }
        for fd in held { close(fd) }
    }

    deinit { closeAll() }

    /// `path` from the held directory one or two levels above it (a group, or a group's
    /// file), or from `/` when there is none.
    func anchor(_ path: String) -> AnchoredPath {
        descriptors.withLock { held in
            guard !held.isEmpty else { return AnchoredPath(path) }
            var end = path.endIndex
            for _ in 0..<2 {
                guard let slash = path[..<end].lastIndex(of: "/") else { break }
                if let fd = held[String(path[..<slash])] {
                    return AnchoredPath(path, directory: fd, relativePath: String(path[path.index(after: slash)...]))
                }
                end = slash
            }
            return AnchoredPath(path)
        }
    }
}
