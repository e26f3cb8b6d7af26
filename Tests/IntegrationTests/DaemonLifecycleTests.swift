import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// The daemon as systemd sees it: readiness, watchdog, stop, reload, single instance.
@Suite struct DaemonLifecycleTests {
    static let twoHosts = """
    [hosts.panel]
    command = ["/bin/sleep", "1000"]
    autostart = false

    [apps."com.example.app"]
    command = ["/bin/sleep", "1000"]

    [extensions."com.example.app.widget"]
    app = "com.example.app"
    point = "widget"
    command = ["/bin/sleep", "1000"]
    """

    @Test func readyComesAfterTheControlSocketAccepts() throws {
        let daemon = try TestDaemon(config: Self.twoHosts)
        let ready = try daemon.start()
        // READY=1 must mean "serving": the very next connection is answered.
        let response = try daemon.control(ControlRequest(command: .status))
        #expect(response.ok)
        #expect(ready.contains("STATUS="))
        #expect(response.status?.map(\.name) == ["panel", "com.example.app", "com.example.app.widget"])
    }

    @Test func watchdogPingsAtHalfTheInterval() throws {
        let daemon = try TestDaemon()
        try daemon.start(environment: ["WATCHDOG_USEC": "200000"])
        var pings = 0
        let start = Date()
        while pings < 3, Date().timeIntervalSince(start) < 3 {
            if daemon.notify.wait(for: "WATCHDOG=1", timeout: 1) != nil { pings += 1 }
        }
        #expect(pings == 3)
    }

    @Test func sigtermStopsCleanly() throws {
        let daemon = try TestDaemon(config: Self.twoHosts)
        try daemon.start()
        #expect(FileManager.default.fileExists(atPath: daemon.controlSocket))
        daemon.process?.signal(SIGTERM)
        #expect(daemon.notify.wait(for: "STOPPING=1", timeout: 5) != nil)
        #expect(daemon.process?.wait(timeout: 10) == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.controlSocket))
    }

    @Test func sighupWithABrokenConfigKeepsTheOldOne() throws {
        let daemon = try TestDaemon(config: Self.twoHosts)
        try daemon.start()
        try daemon.writeConfig(Self.twoHosts + "\n[hosts.broken]\ncommand = \"not an array\"\n")
        daemon.process?.signal(SIGHUP)
        #expect(daemon.notify.wait(for: "RELOADING=1", timeout: 5) != nil)
        #expect(eventually { daemon.process?.stderr.contains("reload failed") == true })
        let names = try daemon.control(ControlRequest(command: .status)).status?.map(\.name)
        #expect(names == ["panel", "com.example.app", "com.example.app.widget"])
        #expect(daemon.process?.isRunning == true)
    }

    @Test func reloadAppliesAGoodConfigAndReportsABadOne() throws {
        let daemon = try TestDaemon(config: Self.twoHosts)
        try daemon.start()
        try daemon.writeConfig(Self.twoHosts + "\n[hosts.second]\ncommand = [\"/bin/true\"]\nautostart = false\n")
        let good = try daemon.supervisorctl(["reload"])
        #expect(good.exitCode == 0)
        #expect(try daemon.control(ControlRequest(command: .status)).status?.contains { $0.name == "second" } == true)

        try daemon.writeConfig("[hosts.bad]\ncommand = []\nbogus_key = 1\n")
        let bad = try daemon.supervisorctl(["reload"])
        #expect(bad.exitCode == 1)
        #expect(bad.stderr.contains("bogus_key"))
        #expect(bad.stderr.contains("extensiond.toml:"))
        #expect(try daemon.control(ControlRequest(command: .status)).status?.contains { $0.name == "second" } == true)
    }

    @Test func aSecondDaemonOnTheSameRuntimeDirectoryRefuses() throws {
        let daemon = try TestDaemon()
        try daemon.start()
        let second = try runCommand(Binaries.path("extensiond"), ["--config", daemon.configPath], in: daemon.directory)
        #expect(second.exitCode == 1)
        #expect(second.stderr.contains("already running"))
        #expect(try daemon.control(ControlRequest(command: .status)).ok)
    }
}
