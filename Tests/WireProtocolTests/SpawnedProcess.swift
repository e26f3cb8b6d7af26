#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, with a given socket as its fd 3 — a
/// test-only stand-in for the daemon's spawner.
struct SpawnedProcess {
    let pid: pid_t

    /// Starts `arguments[0]` (searched in `PATH`) with `environment` and `socket` as fd 3.
    init(_ arguments: [String], environment: [String: String], socket: Int32) throws {
        // dup2 onto itself would keep close-on-exec: move the socket off 3 first.
        let source = socket == ExtensionEnvironmentFD.number ? fcntl(socket, F_DUPFD_CLOEXEC, 10) : socket
        defer { if source != socket { close(source) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, source, ExtensionEnvironmentFD.number)

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid = pid_t()
        let status = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        guard status == 0 else { throw PeerError.system("posix_spawnp \(arguments[0])", status) }
        self.pid = pid
    }

    /// Waits up to `seconds` for the exit status; kills the process and returns `nil` on timeout.
    func exitStatus(within seconds: Int = 10) -> Int32? {
        var status: Int32 = 0
        for _ in 0..<(seconds * 100) {
            if waitpid(pid, &status, WNOHANG) == pid {
                return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -(status & 0x7F)
            }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return nil
    }
}

private enum ExtensionEnvironmentFD {
    static let number: Int32 = 3
}
