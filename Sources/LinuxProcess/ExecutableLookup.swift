#if canImport(Glibc)
import Glibc
#endif

/// Finds the file a bare command name refers to, as a shell would, before the fork.
public enum ExecutableLookup {
    public static let defaultSearchPath = "/usr/local/bin:/usr/bin:/bin"

    /// `executable` itself when it contains a slash (exec reports any problem);
    /// otherwise the first executable regular file named so in `PATH`.
    public static func resolve(_ executable: String, environment: [String: String]) throws(SpawnError) -> String {
        guard !executable.isEmpty else {
            throw SpawnError(.resolveExecutable, "\"\"", reason: "the command is empty")
        }
        if executable.contains("/") { return executable }
        let searchPath = environment["PATH"] ?? defaultSearchPath
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = "\(directory)/\(executable)"
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        throw SpawnError(.resolveExecutable, executable, reason: "not found in PATH \(searchPath)")
    }
}
