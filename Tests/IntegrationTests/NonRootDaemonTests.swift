import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// A daemon that is not root (a developer's `make demo`): it runs everything as itself,
/// says so once at start and in `version`, keeps the sandbox, and its own user controls
/// it, though not from the processes it runs.
///
/// The daemon runs as an unprivileged uid through setpriv, in a cgroup sandbox handed over
/// to that uid (as systemd delegates a subtree).
@Suite struct NonRootDaemonTests {
    static let user: uid_t = 64_123

    private static let setpriv = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--"]

    /// `supervisorctl` as the daemon's user.
    private func supervisorctl(_ daemon: TestDaemon, _ arguments: [String]) throws -> CommandResult {
        try runCommand(
            "/usr/bin/setpriv", Self.setpriv + [Binaries.path("supervisorctl"), "--socket", daemon.controlSocket] + arguments,
            in: daemon.directory)
    }

    @Test func aDaemonThatIsNotRootRunsEverythingAsItselfAndSaysSo() throws {
        let daemon = try TestDaemon()
        let shared = daemon.sharedDirectory
        let asking = "\(Binaries.path("supervisorctl")) --socket \(daemon.controlSocket) status"
        try daemon.writeConfig(
            """
            [apps.a]
            command = ["/bin/sh", "-c", "\(asking) > \(shared)/app.out 2>&1; echo exit $? >> \(shared)/app.out; exec sleep 1000"]
            groups = ["group.a"]

            [extensions.w]
            app = "a"
            point = "widget"
            command = ["/bin/sleep", "1000"]
            """)
        // What a delegation gives the user: its cgroup subtree, and directories to keep state in.
        for directory in [daemon.sandbox.memoryDirectory, daemon.sandbox.pidsDirectory].compactMap({ $0 }) {
            #expect(try runCommand("/bin/chown", ["-R", "\(Self.user):\(Self.user)", directory], in: daemon.directory).exitCode == 0)
        }
        for directory in [daemon.runtimeDirectory, daemon.stateDirectory] {
            #expect(mkdir(directory, 0o755) == 0 && chown(directory, Self.user, Self.user) == 0)
        }
        #expect(chmod(daemon.notify.path, 0o777) == 0)
        try daemon.start(wrapper: ["/usr/bin/setpriv"] + Self.setpriv)

        // Its user is its admin: it reads and changes.
        let version = try supervisorctl(daemon, ["version"])
        #expect(version.exitCode == 0, "\(version.stderr)")
        let notRoot = "isolation: not root: every process runs as the daemon's uid \(Self.user), without per-app users or group walls"
        #expect(version.stdout.contains(notRoot), "\(version.stdout)")
        let start = try supervisorctl(daemon, ["start", "a", "w"])
        #expect(start.exitCode == 0, "\(start.stderr)")

        // Said once at start.
        let log = try #require(daemon.process).stderr
        #expect(log.components(separatedBy: "isolation: not root").count == 2, "\(log)")

        // Everything runs as the daemon's uid, the extension still under the sandbox.
        #expect(eventually(timeout: 10) { (try? self.pid(of: "w", daemon)) != nil })
        let pid = try #require(try self.pid(of: "w", daemon))
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        #expect(status.contains("Uid:\t\(Self.user)\t\(Self.user)\t\(Self.user)\t\(Self.user)"), "\(status)")
        #expect(status.contains("NoNewPrivs:\t1") && status.contains("Seccomp:\t2"))
        var container = stat()
        #expect(stat(daemon.stateDirectory + "/groups/group.a", &container) == 0)
        #expect(container.st_uid == Self.user && container.st_mode & 0o7777 == 0o770)

        // Not from the processes it runs, which share its uid only because it cannot switch.
        let appOutput = { (try? String(contentsOfFile: shared + "/app.out", encoding: .utf8)) ?? "" }
        #expect(eventually(timeout: 10) { appOutput().contains("exit") }, "\(appOutput())")
        #expect(appOutput().contains("a supervised process") && appOutput().contains("exit 4"), "\(appOutput())")

        // Root still runs everything.
        #expect(try daemon.supervisorctl(["stop", "all"]).exitCode == 0)
    }

    private func pid(of name: String, _ daemon: TestDaemon) throws -> Int32? {
        try daemon.control(.status(NameSelection([name]))).status?.first?.pid
    }
}
