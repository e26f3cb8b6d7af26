import Glibc
import LinuxProcess

/// The Landlock rules of a sandboxed process (docs/SECURITY.md): the system read-only,
/// its own program and libraries, its devices, and what is its own read-write. Nothing
/// else of the file system: not `state_dir`, not other apps' directories, not `/root`,
/// `/home` or `/tmp`.
enum SandboxRules {
    /// Programs and libraries: read and execute.
    static let systemDirectories = ["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin"]
    /// Configuration and the process's own figures: read.
    static let readOnlyDirectories = ["/etc", "/proc", "/sys/fs/cgroup"]
    static let devices = ["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"]

    /// What a process's rules are derived from: equal inputs give equal rules, so a relaunch
    /// compares these instead of reading the program's ELF headers and resolving paths again.
    /// The program's inode and modification time stand for its contents (its run path).
    struct Inputs: Equatable {
        var executable: String
        var command: [String]
        var writable: [String]
        var readable: [String]
        var program: FileIdentity?

        init(executable: String, command: [String], writable: [String], readable: [String]) {
            self.executable = executable
            self.command = command
            self.writable = writable
            self.readable = readable
            program = FileIdentity(of: executable)
        }
    }

    /// The identity of a file's current contents, as far as `stat` tells.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var modified: timespec

        init?(of path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            modified = info.st_mtim
        }

        static func == (lhs: FileIdentity, rhs: FileIdentity) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
        }
    }

    /// The rules for a process running `inputs.executable` (resolved) from `inputs.command`,
    /// writing `inputs.writable` and reading `inputs.readable` besides.
    static func rules(_ inputs: Inputs) -> [Landlock.Rule] {
        let executable = inputs.executable
        var rules = systemDirectories.map { Landlock.Rule($0, [.read, .execute], optional: true) }
        rules += readOnlyDirectories.map { Landlock.Rule($0, .read, optional: true) }
        rules += devices.map { Landlock.Rule($0, .device, optional: true) }
        // The program's directory and where its libraries load from (a Swift runtime under /opt),
        // as written and with symbolic links resolved.
        var programDirectories: [String] = []
        for path in Set([executable, realPath(executable) ?? executable]) {
            programDirectories.append(directory(of: path))
            programDirectories += ELFRunPath.directories(of: path)
        }
        for directory in Set(programDirectories).sorted() where directory != "/" && !isBeneathSystemDirectory(directory) {
            rules.append(Landlock.Rule(directory, [.read, .execute], optional: true))
        }
        // Files the command names, such as an interpreter's script.
        for argument in inputs.command.dropFirst() where argument.hasPrefix("/") && isRegularFile(argument) {
            rules.append(Landlock.Rule(argument, .read))
        }
        rules += inputs.readable.map { Landlock.Rule($0, .read) }
        rules += inputs.writable.map { Landlock.Rule($0, [.read, .write]) }
        return rules
    }

    private static func isBeneathSystemDirectory(_ path: String) -> Bool {
        systemDirectories.contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
