import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// An extension that closes fd 3 and stays alive (issue 19, case 13): end of file on fd 3
/// ends its run, SIGTERM then SIGKILL after its `stop_timeout`, and not at a deadline.
@Suite struct ChannelClosedTests {
    /// Says `ready`, closes fd 3, and lives on; `ignoreTerm` makes it ignore SIGTERM too.
    static func script(ignoreTerm: Bool) -> String {
        """
        import os, signal, time
        fd = int(os.environ["EXTENSIOND_FD"])
        os.write(fd, b'{"type":"ready","protocol":1}\\n')
        time.sleep(0.2)
        \(ignoreTerm ? "signal.signal(signal.SIGTERM, signal.SIG_IGN)" : "")
        os.close(fd)
        time.sleep(1000)
        """
    }

    @Test(arguments: [false, true])
    func endOfFileOnFd3EndsTheRun(ignoreTerm: Bool) throws {
        let daemon = try TestDaemon()
        let script = try daemon.directory.write("closer.py", Self.script(ignoreTerm: ignoreTerm))
        try daemon.writeConfig(
            """
            [apps.app]
            command = ["/bin/sleep", "1000"]

            [extensions.closer]
            app = "app"
            point = "widget"
            command = ["/usr/bin/python3", "-S", "\(script)"]
            idle_exit = "1h"
            stop_timeout = "500ms"
            """)
        try daemon.start()
        #expect(try daemon.control(.start(NameSelection(["closer"]))).ok)
        let pid = try #require(try eventually { try status(daemon)?.pid != nil } ? status(daemon)?.pid : nil)
        let started = Date()
        // The grace period (500 ms) after the close at 200 ms, and room for a busy machine.
        #expect(try eventually(timeout: 5) { try status(daemon)?.pid == nil }, "still running")
        let took = Date().timeIntervalSince(started)
        #expect(kill(pid_t(pid), 0) != 0, "pid \(pid) is still alive")
        if ignoreTerm { #expect(took >= 0.5, "killed before its grace period: \(took) s") }
        let events = try daemon.control(.events(LogRequest(lines: 100))).events ?? []
        #expect(events.contains { $0.name == "closer" && $0.reason == "closed" }, "\(events.map(\.message))")
        #expect(try status(daemon)?.state == "stopped", "a run that closed fd 3 rests until it is needed")
    }

    private func status(_ daemon: TestDaemon) throws -> ProcessStatus? {
        try daemon.control(.status(NameSelection(["closer"]))).status?.first
    }
}
