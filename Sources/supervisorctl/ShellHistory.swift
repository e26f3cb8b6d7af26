import Glibc

/// The shell's history kept across sessions, one line per command, in
/// `$EXTENSIOND_HISTORY` (empty: none kept), else
/// `${XDG_STATE_HOME:-$HOME/.local/state}/extensiond/supervisorctl_history` (mode 0600).
/// Keeping it is best effort: a file that cannot be read or written costs only the history.
enum ShellHistory {
    static var path: String? {
        if let explicit = environment("EXTENSIOND_HISTORY") { return explicit.isEmpty ? nil : explicit }
        guard
            let state = environment("XDG_STATE_HOME").flatMap({ $0.isEmpty ? nil : $0 })
                ?? environment("HOME").map({ $0 + "/.local/state" })
        else { return nil }
        return state + "/extensiond/supervisorctl_history"
    }

    /// The lines kept, oldest first; the file is cut to the newest ``LineEditor/historyLimit``
    /// lines when it grew past twice that.
    static func load() -> [String] {
        guard let path, let file = fopen(path, "r") else { return [] }
        var lines: [String] = []
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&buffer, &capacity, file) > 0, let buffer {
            let line = String(cString: buffer)
            lines.append(line.hasSuffix("\n") ? String(line.dropLast()) : line)
        }
        free(buffer)
        fclose(file)
        if lines.count > 2 * LineEditor.historyLimit {
            lines = Array(lines.suffix(LineEditor.historyLimit))
            write(lines, to: path, flags: O_TRUNC)
        }
        return lines
    }

    static func append(_ line: String) {
        guard let path, !line.contains("\n") else { return }
        makeParent(of: path)
        write([line], to: path, flags: O_APPEND)
    }

    private static func write(_ lines: [String], to path: String, flags: Int32) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0o600)
        guard fd >= 0 else { return }
        let text = lines.map { $0 + "\n" }.joined()
        _ = text.utf8.withContiguousStorageIfAvailable { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Makes the directories above `path` (mode 0700), as `mkdir -p` would.
    private static func makeParent(of path: String) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            mkdir(prefix, 0o700)
        }
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
