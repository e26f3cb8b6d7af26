import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// An extension running as root can move itself into another cgroup (issue 8, item 5):
/// the daemon still stops it within `stop_timeout` plus a bound, kills it and whatever it
/// started wherever they went (a root extension is the init of a PID namespace of its
/// own), and says so. Every test removes `elsewhere` (killing what is in it) and its daemon.
@Suite(.serialized) struct CgroupEscapeTests {
    /// Moves itself into the memory cgroup `$1` and the others `$2` (pids, cpu, cpuacct;
    /// separated by spaces), ignores SIGTERM,
    /// starts a child there, creates `$3` and waits.
    static let escapeScript = #"""
        echo 0 > "$1/cgroup.procs" || exit 1
        for other in $2; do echo 0 > "$other/cgroup.procs" || exit 1; done
        trap '' TERM
        sleep 1000 &
        : > "$3"
        wait
        """#

    /// Stays in its cgroup, ignores SIGTERM; its child moves to `$1` and `$2`, starts a
    /// `sleep` of its own and double-forks another, whose parent exits at once (the
    /// grandchild is reparented), then creates `$3`.
    static let doubleForkScript = #"""
        trap '' TERM
        (
            echo 0 > "$1/cgroup.procs" || exit 1
            for other in $2; do echo 0 > "$other/cgroup.procs" || exit 1; done
            trap '' TERM
            (sleep 1000 &)
            sleep 1000 &
            : > "$3"
            wait
        ) &
        wait
        """#

    @Test func aStopEndsWithinStopTimeoutAndKillsTheEscapedProcessAndItsChild() throws {
        let elsewhere = try CgroupSandbox()
        defer { elsewhere.remove() }
        let daemon = try TestDaemon()
        let started = try startEscapee(Self.escapeScript, sleeps: 1, in: daemon, elsewhere: elsewhere)
        #expect(started.escaped.contains(started.main), "the main process left the daemon's tree")
        try expectStopKills(started, of: daemon, stopTimeout: 1)
    }

    @Test func aStopKillsAnEscapedChildThatDoubleForked() throws {
        let elsewhere = try CgroupSandbox()
        defer { elsewhere.remove() }
        let daemon = try TestDaemon()
        let started = try startEscapee(Self.doubleForkScript, sleeps: 2, in: daemon, elsewhere: elsewhere)
        #expect(!started.escaped.contains(started.main))
        #expect(hasOrphan(started), "the grandchild was reparented")
        try expectStopKills(started, of: daemon, stopTimeout: 1)
    }

    @Test func anEscapeeSurvivesNeitherTheDaemonsSIGKILLNorItsRestart() throws {
        let elsewhere = try CgroupSandbox()
        defer { elsewhere.remove() }
        let daemon = try TestDaemon()
        let started = try startEscapee(Self.doubleForkScript, sleeps: 2, in: daemon, elsewhere: elsewhere)
        #expect(hasOrphan(started), "the grandchild was reparented")

        daemon.process?.signal(SIGKILL)
        #expect(daemon.process?.wait(timeout: 5) != nil)
        let successor = TestDaemon(restarting: daemon)
        try successor.start()
        for pid in started.escaped + [started.main] {
            #expect(eventually(timeout: 3) { !isRunning(pid) }, "pid \(pid) survived")
        }
        #expect(successor.stop() == 0)
    }

    @Test func anEscapeeIsKilledAtItsExtensionsDeadline() throws {
        let elsewhere = try CgroupSandbox()
        defer { elsewhere.remove() }
        let daemon = try TestDaemon()
        let began = Date()
        // It never says `ready`: killed at start_timeout, the deadline of a launch.
        let started = try startEscapee(Self.doubleForkScript, sleeps: 2, in: daemon, elsewhere: elsewhere, timeouts: "start_timeout = \"2s\"")
        for pid in started.escaped + [started.main] {
            #expect(eventually(timeout: 2 + 3 - Date().timeIntervalSince(began)) { !isRunning(pid) }, "pid \(pid) survived")
        }
        let kills = try daemon.control(.events(LogRequest(lines: 100))).events?.filter { $0.kind == .kill && $0.name == "escapee" } ?? []
        #expect(kills.contains { $0.reason == "deadline" && $0.message.contains("start_timeout") }, "\(kills.map(\.message))")
        #expect(kills.contains { $0.reason == "deadline" && escapeNamed(started.escaped, in: $0.message) }, "\(kills.map(\.message))")
    }

    /// What ``startEscapee(_:sleeps:in:elsewhere:timeouts:)`` started.
    struct Escapee {
        /// The main process, as the daemon sees it.
        var main: pid_t
        /// Everything in `elsewhere` once the script is done.
        var escaped: [pid_t]
    }

    /// Starts `script` as the root, unsandboxed extension `escapee` and waits until it has
    /// moved a shell and `sleeps` sleeps into `elsewhere` (whose pids are those the daemon sees: inside its
    /// PID namespace the script's own `$$` is 1).
    private func startEscapee(
        _ script: String, sleeps: Int, in daemon: TestDaemon, elsewhere: CgroupSandbox,
        timeouts: String = "start_timeout = \"60s\"\nstop_timeout = \"1s\""
    ) throws -> Escapee {
        let path = try daemon.directory.write("escape.sh", script)
        let done = daemon.directory.file("escaped")
        try daemon.writeConfig(
            """
            [apps.app]
            command = ["/bin/sleep", "1000"]

            [extensions.escapee]
            app = "app"
            point = "widget"
            command = ["/bin/sh", "\(path)", "\(elsewhere.memoryDirectory)", "\(elsewhere.otherDirectories.joined(separator: " "))", "\(done)"]
            \(timeouts)
            # Root with no sandbox: what can move itself between cgroups.
            user = "root"
            group = "root"

            [extensions.escapee.sandbox]
            enabled = false
            """)
        try daemon.start()
        #expect(try daemon.control(.start(NameSelection(["escapee"]))).ok)
        // A launch right after the daemon's start waits for its data volume (made beside the loop).
        var pid: pid_t?
        _ = try eventually(timeout: 30) {
            pid = try daemon.control(.status(NameSelection(["escapee"]))).status?.first?.pid
            return pid != nil
        }
        let main = try #require(pid)
        try #require(eventually(timeout: 10) { FileManager.default.fileExists(atPath: done) })
        var escaped: [pid_t] = []
        let settled = eventually(timeout: 10) {
            escaped = processes(in: elsewhere.memoryDirectory).filter(isRunning)
            return escaped.filter { command(of: $0) == "sleep" }.count == sleeps && escaped.count == sleeps + 1
        }
        try #require(settled, "\(escaped.map { "\($0) \(command(of: $0) ?? "?")" })")
        return Escapee(main: main, escaped: escaped)
    }

    /// `stop` returns within `stopTimeout` + 3 s, says stopped, every pid is dead and
    /// the kill event names the escaped ones.
    private func expectStopKills(_ started: Escapee, of daemon: TestDaemon, stopTimeout: Double) throws {
        let began = Date()
        let response = try daemon.control(.stop(NameSelection(["escapee"])))
        let took = Date().timeIntervalSince(began)
        #expect(response.ok)
        #expect(took < stopTimeout + 3, "stop took \(took) s with stop_timeout \(stopTimeout)s")
        let status = try daemon.control(.status(NameSelection(["escapee"]))).status?.first
        #expect(status?.state == "stopped")
        #expect(status?.pid == nil)
        for pid in started.escaped + [started.main] {
            #expect(eventually(timeout: stopTimeout + 3 - Date().timeIntervalSince(began)) { !isRunning(pid) }, "pid \(pid) survived")
        }
        let kills = try daemon.control(.events(LogRequest(lines: 100))).events?.filter { $0.kind == .kill && $0.name == "escapee" } ?? []
        #expect(kills.contains { escapeNamed(started.escaped, in: $0.message) }, "\(kills.map(\.message)) for \(started.escaped)")
    }

    /// A `sleep` in `elsewhere` whose parent is not: the grandchild whose parent exited
    /// (reparented to init, or to the main process when that is its namespace's init).
    private func hasOrphan(_ started: Escapee) -> Bool {
        started.escaped.contains { pid in command(of: pid) == "sleep" && parent(of: pid).map { !started.escaped.contains($0) } == true }
    }

    /// The message says every pid of `escaped` had left its cgroup.
    private func escapeNamed(_ escaped: [pid_t], in message: String) -> Bool {
        guard message.contains("had left"), let named = message.split(separator: " had left").first else { return false }
        let pids = Set(named.split(whereSeparator: { !$0.isNumber }).compactMap { pid_t($0) })
        return Set(escaped).isSubset(of: pids)
    }

    private func processes(in directory: String) -> [pid_t] {
        ((try? String(contentsOfFile: directory + "/cgroup.procs", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
    }

    private func command(of pid: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").dropFirst().first.flatMap { pid_t($0) }
    }

    /// Neither gone nor a zombie.
    private func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].dropFirst().first
        return state != "Z" && state != "X"
    }
}
