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
    /// The program's identity stands for its contents (its run path). A granted directory's
    /// identity is part of the inputs because a ruleset holds the directory it was made with:
    /// one removed and made again needs a new ruleset, or the process cannot use it.
    struct Inputs: Equatable {
        var executable: String
        var command: [String]
        var writable: [String]
        var readable: [String]
        var program: FileIdentity?
        var directories: [FileIdentity?]

        init(executable: String, command: [String], writable: [String], readable: [String]) {
            self.executable = executable
            self.command = command
            self.writable = writable
            self.readable = readable
            program = FileIdentity(of: executable)
            directories = (writable + readable).map { FileIdentity(of: $0) }
        }

        static func == (lhs: Inputs, rhs: Inputs) -> Bool {
            lhs.executable == rhs.executable && lhs.command == rhs.command && lhs.writable == rhs.writable
                && lhs.readable == rhs.readable && lhs.program == rhs.program && lhs.grantsSameDirectories(as: rhs)
        }

        /// Whether the granted directories are the same files as in `other`, whatever was
        /// made or removed in them: then a ruleset made for `other` serves these too.
        func grantsSameDirectories(as other: Inputs) -> Bool {
            directories.count == other.directories.count
                && zip(directories, other.directories).allSatisfy { pair in
                    switch pair {
                    case (nil, nil): true
                    case (let mine?, let theirs?): mine.isSameFile(as: theirs)
                    default: false
                    }
                }
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
