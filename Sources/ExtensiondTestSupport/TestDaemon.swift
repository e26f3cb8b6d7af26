import ControlProtocol
import Foundation

/// A real `extensiond` process on a throw-away runtime and state directory, with a
/// notify socket the test reads. Stopped (then killed) on deinit.
public final class TestDaemon: @unchecked Sendable {
    public let directory: TemporaryDirectory
    public let configPath: String
    public let notify: NotifySocket
    /// The daemon's cgroup root: every test daemon gets its own, with a hard limit.
    public let sandbox: CgroupSandbox
    /// Whether the config names ``sandbox`` as `supervisor.cgroup`; without it the daemon
    /// makes its tree where it was started (see ``start(environment:readyTimeout:wrapper:)``).
    public let sandboxIsRoot: Bool
    public private(set) var process: TestProcess?

    public var runtimeDirectory: String { directory.file("run") }
    public var stateDirectory: String { directory.file("state") }
    public var controlSocket: String { runtimeDirectory + "/control.sock" }
    public var hostSocket: String { runtimeDirectory + "/host.sock" }
    /// `supervisor.package_drop_in_dir` unless `supervisor` sets it: a test daemon never
    /// reads the machine's packages.
    public var packageDropInDirectory: String { directory.file("packages.d") }
    /// A directory every supervised process may write to, as far as file modes go (mode 1777,
    /// like /tmp): apps and extensions run under uids of their own. A sandboxed extension
    /// still needs it in its `sandbox.write`.
    public var sharedDirectory: String { directory.file("shared") }

    /// Writes a config with `[supervisor]` pointing at the temporary directories (drop-ins too) and
    /// the sandbox cgroup (unless `supervisor` sets `cgroup` itself or `sandboxIsRoot` is
    /// false), plus `supervisor` lines, followed by `body`.
    public init(config body: String = "", supervisor: String = "", sandboxIsRoot: Bool = true) throws {
        self.sandboxIsRoot = sandboxIsRoot
        directory = try TemporaryDirectory()
        // Supervised processes run under their own uids: they must reach the scripts here.
        chmod(directory.path, 0o755)
        mkdir(directory.file("shared"), 0o777)
        chmod(directory.file("shared"), 0o1777)
        sandbox = try CgroupSandbox()
        notify = try NotifySocket(path: directory.file("notify.sock"))
        configPath = directory.file("extensiond.toml")
        try writeConfig(body, supervisor: supervisor)
    }

    /// The same daemon once more, after `previous` stopped: its directories, config and
    /// notify socket, so that it reads back what `previous` left in `state_dir`.
    public init(restarting previous: TestDaemon) {
        directory = previous.directory
        sandbox = previous.sandbox
        sandboxIsRoot = previous.sandboxIsRoot
        notify = previous.notify
        configPath = previous.configPath
    }

    deinit {
        if let process, process.isRunning {
            process.signal(SIGTERM)
            if process.wait(timeout: 5) == nil {
                process.signal(SIGKILL)
                // Reaped before the directory goes: a daemon still dying may mount a volume
                // after the directory's unmount pass has looked.
                _ = process.wait(timeout: 10)
            }
        }
        // The sandbox goes with its last daemon (see `init(restarting:)`).
    }

    /// Replaces the config file (e.g. before a reload).
    public func writeConfig(_ body: String, supervisor: String = "") throws {
        let cgroup = supervisor.contains("cgroup") || !sandboxIsRoot ? "" : "cgroup = \"\(sandbox.memoryDirectory)\""
        let packages = supervisor.contains("package_drop_in_dir") ? "" : "package_drop_in_dir = \"\(packageDropInDirectory)\""
        let header = """
            [supervisor]
            runtime_dir = "\(runtimeDirectory)"
            state_dir = "\(stateDirectory)"
            \(packages)
            \(cgroup)
            \(supervisor)

            """
        try directory.write("extensiond.toml", header + body)
    }

    /// Starts the daemon and waits for `READY=1`; returns that notification. A `wrapper`
    /// command, when given, runs first and is passed the daemon's command line to exec;
    /// `passing` descriptors are its 3, 4, … (sockets, as systemd passes them).
    @discardableResult
    public func start(environment: [String: String] = [:], readyTimeout: Double = 10, wrapper: [String] = [], passing: [Int32] = []) throws -> String {
        // What an earlier daemon on this notify socket said (a READY=1 after a reload) is not about this one.
        while notify.receive(timeout: 0) != nil {}
        let command = wrapper + [Binaries.path("extensiond"), "--config", configPath]
        let process = try TestProcess(
            command[0], Array(command.dropFirst()),
            environment: ["NOTIFY_SOCKET": notify.path].merging(environment) { _, new in new },
            // A test runner started by systemd must not make every test daemon a service.
            removing: ["WATCHDOG_USEC", "WATCHDOG_PID", "EXTENSIOND_SOCKET", "JOURNAL_STREAM", "INVOCATION_ID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"],
            passing: passing, outputIn: directory.path, name: "extensiond"
        )
        self.process = process
        guard let ready = notify.wait(for: "READY=1", timeout: readyTimeout) else {
            throw TestSupportError("extensiond did not send READY=1; stderr:\n\(process.stderr)")
        }
        return ready
    }

    /// SIGTERM and wait; returns the exit code, or nil if it did not exit in time.
    @discardableResult
    public func stop(timeout: Double = 10) -> Int32? {
        guard let process else { return nil }
        process.signal(SIGTERM)
        return process.wait(timeout: timeout)
    }

    /// One request on the control socket, decoded.
    public func control(_ request: ControlRequest) throws -> ControlResponse {
        let reply = try exchange(ControlCodec.line(request))
        guard let newline = reply.firstIndex(of: UInt8(ascii: "\n")) else {
            throw TestSupportError("no complete response line: \(String(decoding: reply, as: UTF8.self))")
        }
        return try ControlCodec.decode(ControlResponse.self, from: reply[..<newline])
    }

    /// Sends `request` on a new control connection and hands each response of the stream
    /// to `body` until it returns false, the daemon closes the connection, or no
    /// response comes for `timeout` seconds (then throws). Closing the connection ends
    /// the stream as a killed client would.
    public func stream(_ request: ControlRequest, timeout: Double = 5, _ body: (ControlResponse) throws -> Bool) throws {
        let fd = try connectUnixStream(to: controlSocket)
        defer { close(fd) }
        let bytes = ControlCodec.line(request)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw TestSupportError("send \(request.command) request: \(String(cString: strerror(errno)))")
        }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let response = try ControlCodec.decode(ControlResponse.self, from: pending[..<newline])
                pending.removeSubrange(...newline)
                if try !body(response) { return }
            }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(timeout * 1000)) == 1 else {
                throw TestSupportError("no \(request.command) response within \(timeout) s")
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            pending += chunk[..<count]
        }
    }

    /// Sends raw bytes on a new control connection, then reads until the daemon closes it.
    public func exchange(_ bytes: [UInt8], path: String? = nil, timeout: Double = 5) throws -> [UInt8] {
        let fd = try connectUnixStream(to: path ?? controlSocket)
        defer { close(fd) }
        var timeout = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }  // the daemon may refuse the rest of an oversized request
            offset += sent
        }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            reply += chunk[..<count]
        }
        return reply
    }

    /// A new host connection to `host.sock`.
    public func connectHost() throws -> TestHost {
        try TestHost(path: hostSocket)
    }

    /// Runs `supervisorctl --socket <control.sock> arguments…`.
    public func supervisorctl(_ arguments: [String], socket: String? = nil) throws -> CommandResult {
        try runCommand(Binaries.path("supervisorctl"), ["--socket", socket ?? controlSocket] + arguments, in: directory)
    }
}

/// What a finished command printed and returned.
public struct CommandResult: Sendable {
    public var exitCode: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs a command to completion (at most `timeout` seconds) and returns its output.
public func runCommand(_ executable: String, _ arguments: [String], environment: [String: String] = [:], in directory: TemporaryDirectory, timeout: Double = 30)
    throws -> CommandResult
{
    let name = "cmd-\(UInt32.random(in: 0 ... .max))"
    let process = try TestProcess(executable, arguments, environment: environment, outputIn: directory.path, name: name)
    guard let code = process.wait(timeout: timeout) else {
        throw TestSupportError("\(executable) \(arguments) did not finish in \(timeout) s")
    }
    return CommandResult(exitCode: code, stdout: process.stdout, stderr: process.stderr)
}
