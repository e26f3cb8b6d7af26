import EventLoop
import Glibc
import Sockets

/// The few file-system operations the daemon needs, with errors that name the path.
package enum FileSystem {
    /// `mkdir -p path` with `mode` for the directories it creates.
    package static func createDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
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
    /// The suffix of the temporary file a write goes through; leftovers are removed at start.
    static let temporarySuffix = ".tmp"

    /// Creates `path` (its parent must exist) unless it exists, then makes it a directory of
    /// `owner` (`nil`: leave the owner) with `mode`. A symbolic link is refused, not followed:
    /// the directory may sit where a sandboxed process can write.
    package static func ownedDirectory(_ path: String, owner: (uid: uid_t, gid: gid_t)?, mode: mode_t) throws(SystemError) {
        if mkdir(path, mode) != 0 && errno != EEXIST { throw SystemError("create directory \(path)") }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open directory \(path)") }
        defer { close(fd) }
        if let owner, fchown(fd, owner.uid, owner.gid) != 0 { throw SystemError("chown \(path) to \(owner.uid):\(owner.gid)") }
        // After chown, which clears the set-group-id bit.
        guard fchmod(fd, mode) == 0 else { throw SystemError("chmod \(path)") }
    }

    /// Replaces `path` with `bytes` so that a crash at any moment leaves either the old
    /// or the new content: write a temporary file, fsync it, rename it over, fsync the directory.
    ///
    /// The temporary file is created with `O_EXCL | O_NOFOLLOW`: whatever is already at its
    /// name (a leftover of a crash, or a symbolic link planted there) is removed, never
    /// written through.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o640) throws(SystemError) {
        let temporary = path + temporarySuffix
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        var fd = open(temporary, flags, mode)
        if fd < 0 && errno == EEXIST {
            unlink(temporary)
            fd = open(temporary, flags, mode)
        }
        guard fd >= 0 else { throw SystemError("create \(temporary)") }
        func fail(_ what: String) -> SystemError {
            let error = SystemError("\(what) \(temporary)")
            close(fd)
            unlink(temporary)
            return error
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw fail("write") }
            offset += written
        }
        guard fsync(fd) == 0 else { throw fail("fsync") }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = SystemError("rename \(temporary) to \(path)")
            unlink(temporary)
            throw error
        }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Removes the temporary files a killed daemon left in `directory` (not below it);
    /// returns their names.
    @discardableResult
    package static func removeTemporaryFiles(in directory: String) -> [String] {
        (entries(of: directory) ?? []).filter { $0.hasSuffix(temporarySuffix) && unlink(directory + "/" + $0) == 0 }
    }

    /// Removes `path` and everything below it, never following a symbolic link (a tenant's
    /// files may hold any). False when something could not be removed.
    @discardableResult
    package static func removeTree(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT }
        guard info.st_mode & S_IFMT == S_IFDIR else { return unlink(path) == 0 }
        let removedAll = (entries(of: path) ?? []).reduce(true) { removeTree(path + "/" + $1) && $0 }
        return rmdir(path) == 0 && removedAll
    }

    /// The names in `directory` (without `.` and `..`); nil when it cannot be read.
    package static func entries(of directory: String) -> [String]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The whole content of `path`, or nil if it does not exist or cannot be read.
    package static func read(_ path: String) -> [UInt8]? {
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
