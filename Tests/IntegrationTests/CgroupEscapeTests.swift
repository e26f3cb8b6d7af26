import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// An extension running as root can move itself into another cgroup (issue 8, item 5):
/// the daemon still stops it within `stop_timeout` plus a bound, finds it and its
/// children through their pidfds, and says so.
@Suite(.serialized) struct CgroupEscapeTests {
    /// Moves itself (memory and pids) into the cgroups given, ignores SIGTERM, starts a
    /// child there and writes both pids to `$3`.
    static let escapeScript = #"""
    echo $$ > "$1/cgroup.procs" || exit 1
    [ -z "$2" ] || echo $$ > "$2/cgroup.procs" || exit 1
    trap '' TERM
    sleep 1000 &
    echo "$$ $!" > "$3.tmp" && mv "$3.tmp" "$3"
    wait
    """#

    @Test func aStopEndsWithinStopTimeoutAndKillsTheEscapedProcessAndItsChild() throws {
        let elsewhere = try CgroupSandbox()
        let daemon = try TestDaemon()
        let script = try daemon.directory.write("escape.sh", Self.escapeScript)
        let pids = daemon.directory.file("pids")
        try daemon.writeConfig("""
        [apps.app]
        command = ["/bin/sleep", "1000"]

        [extensions.escapee]
        app = "app"
        point = "widget"
        command = ["/bin/sh", "\(script)", "\(elsewhere.memoryDirectory)", "\(elsewhere.pidsDirectory ?? "")", "\(pids)"]
        start_timeout = "60s"
        stop_timeout = "1s"
        # Root with no sandbox: what can move itself between cgroups.
        user = "root"
        group = "root"

        [extensions.escapee.sandbox]
        enabled = false
        """)
        try daemon.start()
        #expect(try daemon.control(.start(NameSelection(["escapee"]))).ok)
        #expect(eventually(timeout: 10) { FileManager.default.fileExists(atPath: pids) })
        let escaped = try String(contentsOfFile: pids, encoding: .utf8).split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(escaped.count == 2)
        let members = try String(contentsOfFile: elsewhere.memoryDirectory + "/cgroup.procs", encoding: .utf8)
        // (`mv` may still be exiting there too.)
        #expect(Set(escaped).isSubset(of: members.split(separator: "\n").compactMap { pid_t($0) }), "both processes are outside the daemon's tree")

        let began = Date()
        let response = try daemon.control(.stop(NameSelection(["escapee"])))
        let took = Date().timeIntervalSince(began)
        #expect(response.ok)
        #expect(took < 1 + 3, "stop took \(took) s with stop_timeout 1s")
        let status = try daemon.control(.status(NameSelection(["escapee"]))).status?.first
        #expect(status?.state == "stopped")
        #expect(status?.pid == nil)
        for pid in escaped {
            #expect(eventually(timeout: 2) { !isRunning(pid) }, "pid \(pid) survived")
        }
        let kills = try daemon.control(.events(LogRequest(lines: 100))).events?.filter { $0.kind == .kill } ?? []
        #expect(kills.contains { $0.name == "escapee" && $0.message.contains("\(escaped[0]) (the main process)") && $0.message.contains("had left") },
                "\(kills.map(\.message))")
    }

    /// Neither gone nor a zombie.
    private func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].dropFirst().first
        return state != "Z" && state != "X"
    }
}
