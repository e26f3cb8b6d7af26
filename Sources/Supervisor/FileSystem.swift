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

extension FileSystem {
    /// Replaces `path` with `bytes` so that a crash at any moment leaves either the old
    /// or the new content: write a temporary file, fsync it, rename it over, fsync the directory.
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o640) throws(SystemError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemError("open \(temporary)") }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let error = SystemError("write \(temporary)")
                close(fd)
                unlink(temporary)
                throw error
            }
            offset += written
        }
        guard fsync(fd) == 0 else {
            let error = SystemError("fsync \(temporary)")
            close(fd)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw SystemError("rename \(temporary) to \(path)") }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// The whole content of `path`, or nil if it does not exist or cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }
}
