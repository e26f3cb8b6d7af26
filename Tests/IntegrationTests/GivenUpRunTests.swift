import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// A run given up (its main process not reaped within `exitBound` of SIGKILL) is still
/// reaped once the process exits: no zombie is left behind (issue 19, item 6).
///
/// The process is held past the bound by a v1 freezer group of the test's, outside the
/// daemon's tree (a frozen task does not act on SIGKILL until thawed), which is the same
/// path as a loop stalled past the bound when the kill lands: the give-up timer comes first.
@Suite struct GivenUpRunTests {
    @Test func aProcessHeldPastTheBoundIsReapedWhenItFinallyExits() throws {
        let daemon = try TestDaemon()
        let freezer = try #require(daemon.sandbox.freezerDirectory, "no v1 freezer hierarchy")
        try daemon.writeConfig(
            """
            [hosts.stuck]
            command = ["/bin/sh", "-c", "trap '' TERM; exec sleep 1000"]
            stop_timeout = "100ms"
            """)
        try daemon.start()
        var pid: pid_t?
        #expect(
            try eventually(timeout: 10) {
                pid = try daemon.control(.status(NameSelection())).status?.first { $0.name == "stuck" && $0.state == "running" }?.pid
                return pid != nil
            })
        let stuck = try #require(pid)

        // Frozen in a group the daemon does not know, so that its kill cannot thaw it.
        let held = freezer + "/held"
        #expect(mkdir(held, 0o755) == 0)
        try "\(stuck)".write(toFile: held + "/cgroup.procs", atomically: false, encoding: .utf8)
        try "FROZEN".write(toFile: held + "/freezer.state", atomically: false, encoding: .utf8)
        #expect(try eventually { try String(contentsOfFile: held + "/freezer.state", encoding: .utf8).hasPrefix("FROZEN") })

        // SIGTERM is ignored, SIGKILL waits for the thaw: the run is given up after 2 s.
        #expect(try daemon.supervisorctl(["stop", "stuck"]).exitCode == 0)
        let given = try daemon.control(.events(LogRequest(lines: 1000))).events ?? []
        #expect(given.contains { $0.name == "stuck" && $0.message.contains("its run is given up") })
        #expect(isAlive(stuck), "still frozen")

        try "THAWED".write(toFile: held + "/freezer.state", atomically: false, encoding: .utf8)
        // Reaped: no /proc entry left, not even a zombie's.
        #expect(eventually(timeout: 10) { !FileManager.default.fileExists(atPath: "/proc/\(stuck)") }, "pid \(stuck) left as a zombie")
        let after = try daemon.control(.events(LogRequest(lines: 1000))).events ?? []
        #expect(after.contains { $0.name == "stuck" && $0.kind == .exit && $0.message.contains("given up, killed by signal 9 and was reaped") })
        #expect(daemon.stop() == 0)
        rmdir(held)
    }
}
