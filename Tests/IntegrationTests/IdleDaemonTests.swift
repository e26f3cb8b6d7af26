import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Nothing spent when idle: with a host running, a ready widget waiting and the pressure
/// monitor armed well below its watermarks, the daemon is not scheduled at all (its
/// context-switch counters stand still), so it polls nothing and wakes for nothing.
@Suite struct IdleDaemonTests {
    @Test func anIdleDaemonIsNeverWoken() throws {
        let daemon = try TestDaemon()
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory, reload: "never")
        try daemon.writeConfig(
            """
            [hosts.panel]
            command = ["/bin/sleep", "1000"]

            [apps.app]
            command = ["/bin/sleep", "1000"]

            [extensions.widget]
            app = "app"
            point = "widget"
            command = \(widget)
            idle_exit = "1h"
            """, supervisor: "memory_budget = \"200M\"")
        try daemon.start()
        #expect(try daemon.control(.pull(PullRequest(name: "widget"))).pull?.result == "newData")
        let pid = try #require(daemon.process?.pid)
        // Write-behind saves and the pull's follow-ups settle first.
        Thread.sleep(forTimeInterval: 2)
        let before = try switches(of: pid)
        Thread.sleep(forTimeInterval: 3)
        let after = try switches(of: pid)
        #expect(after == before, "the idle daemon was scheduled \(after - before) times in 3 s")
        #expect(try daemon.control(.status(NameSelection(["widget"]))).status?.first?.state == "idle")
    }

    /// Voluntary and involuntary context switches of every thread of `pid`.
    private func switches(of pid: pid_t) throws -> Int {
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return try threads.reduce(0) { total, thread in
            let status = try String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8)
            return total
                + status.split(separator: "\n")
                .filter { $0.hasPrefix("voluntary_ctxt_switches:") || $0.hasPrefix("nonvoluntary_ctxt_switches:") }
                .compactMap { Int($0.split(separator: "\t").last ?? "") }
                .reduce(0, +)
        }
    }
}
