import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// The daemon answers memory pressure ahead of the processes it supervises (issue 8,
/// item 9: a kill within 100 ms of a crossing on a busy CPU): it runs at nice -10, and
/// what it starts runs at the default nice 0, not at the daemon's.
@Suite struct SchedulingPriorityTests {
    @Test func theDaemonRunsAtNiceMinus10AndWhatItStartsAtNice0() throws {
        let daemon = try TestDaemon(
            config: """
                [hosts.panel]
                command = ["/bin/sleep", "1000"]
                """)
        try daemon.start()
        let daemonPid = try #require(daemon.process?.pid)
        var host: pid_t?
        #expect(
            try eventually(timeout: 10) {
                host = try daemon.control(.status(NameSelection(["panel"]))).status?.first?.pid
                return host != nil
            })
        #expect(nice(of: daemonPid) == -10)
        #expect(nice(of: try #require(host)) == 0)
    }

    /// Field 19 of /proc/PID/stat.
    private func nice(of pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(end, offsetBy: 2)...].split(separator: " ")
        return fields.count > 16 ? Int(fields[16]) : nil
    }
}
