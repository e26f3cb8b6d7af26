import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// `control.sock` knows who connects (SO_PEERCRED): readers in `control_group`, changers
/// root or in `admin_group`; a refusal names the rule, exits 4 and is recorded.
@Suite struct ControlAccessTests {
    static let readers: gid_t = 59_990
    static let admins: gid_t = 59_991

    /// `supervisorctl` as the unprivileged user 65534 with the supplementary `groups`.
    private func supervisorctl(_ daemon: TestDaemon, groups: [gid_t], _ arguments: [String]) throws -> CommandResult {
        let identity = ["--reuid=65534", "--regid=65534", "--groups=" + groups.map(String.init).joined(separator: ",")]
        return try runCommand(
            "/usr/bin/setpriv", identity + ["--", Binaries.path("supervisorctl"), "--socket", daemon.controlSocket] + arguments,
            in: daemon.directory)
    }

    @Test func readersReadAdminsChangeOthersAreRefused() throws {
        let daemon = try TestDaemon(
            config: """
                [hosts.panel]
                command = ["/bin/sleep", "1000"]
                """, supervisor: "control_group = \"\(Self.readers)\"\nadmin_group = \"\(Self.admins)\"")
        try daemon.start()
        var info = stat()
        #expect(stat(daemon.controlSocket, &info) == 0 && info.st_gid == Self.readers && info.st_mode & 0o777 == 0o660)

        let status = try supervisorctl(daemon, groups: [Self.readers], ["status"])
        #expect(status.exitCode == 0 && status.stdout.contains("panel"), "\(status.stderr)")
        let stop = try supervisorctl(daemon, groups: [Self.readers], ["stop", "panel"])
        #expect(stop.exitCode == 4)
        #expect(stop.stderr.contains("stop changes the daemon and needs root or members of supervisor.admin_group (\(Self.admins))"), "\(stop.stderr)")
        #expect(try daemon.control(.status(NameSelection(["panel"]))).status?.first?.state == "running")
        #expect(try supervisorctl(daemon, groups: [Self.readers], ["defaults", "group.x", "set", "k", "1"]).exitCode == 4)

        let events = try daemon.control(.events(LogRequest(lines: 100))).events ?? []
        #expect(events.contains { $0.message.contains("permission denied: stop") && $0.message.contains("uid 65534") })

        // An admin (here also in the socket's group, to connect) stops; root does everything.
        #expect(try supervisorctl(daemon, groups: [Self.readers, Self.admins], ["stop", "panel"]).exitCode == 0)
        #expect(try daemon.supervisorctl(["start", "panel"]).exitCode == 0)
        #expect(try daemon.supervisorctl(["stop", "panel"]).exitCode == 0)
    }

    @Test func withoutGroupsOnlyRootIsServed() throws {
        let daemon = try TestDaemon()
        try daemon.start()
        // Neither the socket's mode nor the daemon lets another user in.
        let other = try supervisorctl(daemon, groups: [], ["status"])
        #expect(other.exitCode != 0)
        #expect(try daemon.supervisorctl(["status"]).exitCode == 0)
    }
}
