import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Per-app identities against a real root daemon: an app and its extensions run under
/// the app's uid from `user_range`, a configured `group` alone never means root, and the
/// uid survives a restart of the daemon.
@Suite struct IdentityTests {
    @Test func aGroupWithoutAUserKeepsTheAppsUidAndTheUidSurvivesARestart() throws {
        let daemon = try TestDaemon()
        try #require(geteuid() == 0, "identities need a root daemon")
        try daemon.writeConfig(
            """
            [apps.grouped]
            command = ["/bin/sleep", "1000"]
            group = "nogroup"
            autostart = true

            [apps.plain]
            command = ["/bin/sleep", "1000"]
            autostart = true
            """)
        try daemon.start()
        let grouped = try #require(try credentials(of: "grouped", in: daemon))
        #expect(grouped.uid >= 61000 && grouped.uid <= 61999, "grouped runs as uid \(grouped.uid)")
        #expect(grouped.gid == 65534)
        let plain = try #require(try credentials(of: "plain", in: daemon))
        #expect(plain.uid >= 61000 && plain.uid <= 61999 && plain.uid != grouped.uid)
        #expect(plain.gid == plain.uid)

        #expect(daemon.stop() == 0)
        try daemon.start()
        #expect(try credentials(of: "grouped", in: daemon)?.uid == grouped.uid)
        #expect(try credentials(of: "plain", in: daemon)?.uid == plain.uid)
    }

    /// Hosts are not apps: they run as configured, by default as the daemon's own user.
    @Test func hostsRunAsTheDaemonsUserOrTheirConfiguredOne() throws {
        let daemon = try TestDaemon()
        try #require(geteuid() == 0, "another user needs a root daemon")
        try daemon.writeConfig(
            """
            [hosts.own]
            command = ["/bin/sleep", "1000"]

            [hosts.nobody]
            command = ["/bin/sleep", "1000"]
            user = "nobody"
            """)
        try daemon.start()
        let own = try #require(try credentials(of: "own", in: daemon))
        #expect(own.uid == geteuid() && own.gid == getegid())
        let nobody = try #require(try credentials(of: "nobody", in: daemon))
        #expect(nobody.uid == 65534 && nobody.gid == 65534, "nobody runs as \(nobody)")
    }

    /// The real uid and gid of `name`'s running process, from /proc.
    private func credentials(of name: String, in daemon: TestDaemon) throws -> (uid: UInt32, gid: UInt32)? {
        var pid: Int32?
        _ = try eventually {
            pid = try daemon.control(.status(NameSelection([name]))).status?.first?.pid; return pid != nil
        }
        guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func first(_ field: String) -> UInt32? {
            status.split(separator: "\n").first { $0.hasPrefix(field + ":") }?
                .split(separator: "\t").dropFirst().first.flatMap { UInt32($0) }
        }
        return first("Uid").flatMap { uid in first("Gid").map { (uid, $0) } }
    }
}
