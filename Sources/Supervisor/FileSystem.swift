import EventLoop
import Glibc

/// The few file-system operations the daemon needs, with errors that name the path.
enum FileSystem {
    /// `mkdir -p path` with `mode` for the directories it creates.
    static func createDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0 && errno != EEXIST {
                throw SystemError("create directory \(prefix)")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw SystemError("\(path) is not a directory", errno: ENOTDIR)
        }
    }
}
