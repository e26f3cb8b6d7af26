import Foundation

/// A child process started by a test, with stdout and stderr captured to files.
/// Killed (SIGKILL) and reaped on deinit if still running.
public final class TestProcess: @unchecked Sendable {
    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`; `environment` is added to this process's.
    /// `passing` descriptors become the child's 3, 4, … (as systemd passes sockets).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], removing: [String] = [],
        passing descriptors: [Int32] = [], outputIn directory: String, name: String
    ) throws {
        stdoutPath = directory + "/\(name).stdout"
        stderrPath = directory + "/\(name).stderr"
        var env = ProcessInfo.processInfo.environment
        for key in removing { env.removeValue(forKey: key) }
        env.merge(environment) { _, new in new }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        for (index, fd) in descriptors.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, fd, 3 + Int32(index))
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Children start with no blocked signals whatever the test runner blocks.
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw TestSupportError("spawn \(executable): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = wait(timeout: 5)
        }
    }

    /// Sends `signal`.
    public func signal(_ signal: Int32) { kill(pid, signal) }

    /// Waits up to `timeout` seconds; returns the exit code (128+signal when killed), or nil.
    public func wait(timeout: Double) -> Int32? {
        if let exitStatus { return exitStatus }
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                exitStatus = code
                return code
            }
            usleep(5_000)
        } while Date() < deadline
        return nil
    }

    public var isRunning: Bool { wait(timeout: 0) == nil }

    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}

/// Polls `condition` every 10 ms for up to `timeout` seconds.
public func eventually(timeout: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if try condition() { return true }
        usleep(10_000)
    } while Date() < deadline
    return try condition()
}
