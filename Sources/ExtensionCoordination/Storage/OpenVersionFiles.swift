import Glibc
import Sockets

/// The `.version` files (see ``ShownVersion``) written last, kept open: each new version is
/// recorded before any host sees it, and opening the file by path every time was the
/// largest single cost of an update. A few descriptors suffice for the extensions that
/// update often; the least recently written is closed when another is needed.
final class OpenVersionFiles {
    private static let capacity = 8
    /// Most recently written last.
    private var open: [(path: String, fd: Int32)] = []

    deinit {
        for file in open { close(file.fd) }
    }

    /// A descriptor of `path` for writing, created the first time.
    func descriptor(for path: String) throws(SystemError) -> Int32 {
        if let index = open.firstIndex(where: { $0.path == path }) {
            let file = open.remove(at: index)
            open.append(file)
            return file.fd
        }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        if open.count == Self.capacity { close(open.removeFirst().fd) }
        open.append((path, fd))
        return fd
    }

    /// Closes `path`'s descriptor after a failed write, so that the next write opens it afresh.
    func forget(_ path: String) {
        guard let index = open.firstIndex(where: { $0.path == path }) else { return }
        close(open.remove(at: index).fd)
    }
}
