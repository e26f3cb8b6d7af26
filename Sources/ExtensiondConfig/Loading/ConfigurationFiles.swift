import Glibc

/// The files of one config: the main file and its drop-in directories, read from disk.
enum ConfigurationFiles {
    /// `<dir>/<name>.d` for `<dir>/<name>.toml` (or `<dir>/<name>`).
    static func dropInDirectory(for path: String) -> String {
        let base = path.hasSuffix(".toml") ? String(path.dropLast(".toml".count)) : path
        return base + ".d"
    }

    /// The `*.toml` files of `directories`, in name (byte) order; hidden files are skipped. A
    /// name found in several directories is taken from the last of them (the administrator's
    /// file replaces the package's). A missing directory has none; an unreadable one is an error.
    static func dropIns(in directories: [String]) -> (files: [String], errors: [ConfigurationError]) {
        var chosen: [String: String] = [:]
        var errors: [ConfigurationError] = []
        for directory in directories {
            switch names(in: directory) {
            case .success(let names): for name in names { chosen[name] = directory + "/" + name }
            case .failure(let error): errors.append(error)
            }
        }
        let names = chosen.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return (names.compactMap { chosen[$0] }, errors)
    }

    /// The names of the drop-ins (`*.toml`, not hidden) in `directory`.
    private static func names(in directory: String) -> Result<[String], ConfigurationError> {
        guard let stream = opendir(directory) else {
            if errno == ENOENT { return .success([]) }
            return .failure(
                ConfigurationError(file: directory, message: "cannot read the drop-in directory: \(describe(errno))"))
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".toml") && !name.hasPrefix(".") { names.append(name) }
        }
        return .success(names)
    }

    /// The text of `file`, which must be a regular file (after symbolic links) and UTF-8.
    /// Opened without blocking: a FIFO, a device or a directory is refused, never waited on.
    static func read(_ file: String) -> Result<String, ConfigurationError> {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            return .failure(ConfigurationError(file: file, message: "cannot read the config file: \(describe(errno))"))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            return .failure(ConfigurationError(file: file, message: "cannot read the config file: \(describe(errno))"))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return .failure(ConfigurationError(file: file, message: "not a regular file (\(kind(of: info.st_mode))); a config file must be one"))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(
                    ConfigurationError(file: file, message: "cannot read the config file: \(describe(errno))"))
            }
            bytes += chunk[..<count]
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(ConfigurationError(file: file, message: "the file is not valid UTF-8"))
        }
        return .success(text)
    }

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "file type \(String(mode & S_IFMT, radix: 8))"
        }
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
