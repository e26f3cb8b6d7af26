import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// A process that writes its stdout as fast as it can (issue 19, item 9): capturing it
/// costs the daemon a bounded share of a core, measured from the daemon's own
/// `/proc/PID/stat`, and what is not captured is counted in a `dropped` record and in
/// `stats`.
@Suite(.serialized) struct OutputFloodTests {
    @Test func aStdoutFlooderCostsTheDaemonBoundedCPUAndItsDropsAreCounted() throws {
        let daemon = try TestDaemon()
        try daemon.writeConfig(
            """
            [hosts.flooder]
            command = ["/usr/bin/yes", "\(String(repeating: "y", count: 100))"]
            """, supervisor: "output_rate = \"256K\"")
        try daemon.start()
        let pid = try #require(daemon.process?.pid)
        Thread.sleep(forTimeInterval: 1)
        let used = try Self.cpuShare(of: pid, over: 3)
        #expect(used < 0.08, "capturing the flood cost the daemon \(used) of a core")

        let stats = try #require(try daemon.control(.stats(NameSelection(["flooder"]))).stats?.processes.first)
        #expect(stats.outputDroppedBytes > 0, "\(stats)")
        let drops =
            try daemon.control(.events(LogRequest(lines: 200))).events?
            .filter { $0.reason == "output" && $0.name == "flooder" && $0.message.contains("dropped") } ?? []
        #expect(!drops.isEmpty, "no dropped record")
        #expect(daemon.stop() == 0)
    }

    /// The cores `pid` used over `seconds`: its utime and stime, in clock ticks.
    static func cpuShare(of pid: pid_t, over seconds: Double) throws -> Double {
        func ticks() throws -> Double {
            let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
            // After the command: state is field 3, utime 14 and stime 15 of the whole line.
            return Double(fields[11])! + Double(fields[12])!
        }
        let start = (try ticks(), Date())
        Thread.sleep(forTimeInterval: seconds)
        return (try ticks() - start.0) / Double(sysconf(Int32(_SC_CLK_TCK))) / Date().timeIntervalSince(start.1)
    }
}
