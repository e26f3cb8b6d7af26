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
        let response = try daemon.control(.status(NameSelection()))
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
        let names = try daemon.control(.status(NameSelection())).status?.map(\.name)
        #expect(names == ["panel", "com.example.app", "com.example.app.widget"])
        #expect(daemon.process?.isRunning == true)
    }

    /// Found by the fuzzer: `sd_notify` blocks once the notify socket's queue is full (10
    /// datagrams here), so with a reader that lags every reload held the event loop and
    /// control requests went unanswered. Notifications after start-up never wait.
    @Test func reloadsAreAnsweredWhileNobodyReadsTheNotifySocket() throws {
        let daemon = try TestDaemon(config: Self.twoHosts)
        try daemon.start()
        for reload in 0..<30 {
            let started = ContinuousClock.now
            let reply = try daemon.exchange(ControlCodec.line(ControlRequest.reload), timeout: 5)
            #expect(String(decoding: reply, as: UTF8.self).contains("reloaded"), "reload \(reload): \(String(decoding: reply, as: UTF8.self))")
            #expect(ContinuousClock.now - started < .seconds(4), "reload \(reload) took \(ContinuousClock.now - started)")
        }
        #expect(try daemon.control(.status(NameSelection())).ok)
    }

    @Test func reloadAppliesAGoodConfigAndReportsABadOne() throws {
        let daemon = try TestDaemon(config: Self.twoHosts)
        try daemon.start()
        try daemon.writeConfig(Self.twoHosts + "\n[hosts.second]\ncommand = [\"/bin/true\"]\nautostart = false\n")
        let good = try daemon.supervisorctl(["reload"])
        #expect(good.exitCode == 0)
        #expect(try daemon.control(.status(NameSelection())).status?.contains { $0.name == "second" } == true)

        try daemon.writeConfig("[hosts.bad]\ncommand = []\nbogus_key = 1\n")
        let bad = try daemon.supervisorctl(["reload"])
        #expect(bad.exitCode == 1)
        #expect(bad.stderr.contains("bogus_key"))
        #expect(bad.stderr.contains("extensiond.toml:"))
        #expect(try daemon.control(.status(NameSelection())).status?.contains { $0.name == "second" } == true)
    }

    /// The sockets, state, cgroup tree, metrics listener and identities are set up at
    /// start: a reload that changes them applies the rest and names those.
    @Test func reloadNamesTheSettingsThatWaitForARestart() throws {
        let daemon = try TestDaemon(config: Self.twoHosts)
        try daemon.start()
        try daemon.writeConfig(Self.twoHosts, supervisor: "metrics_listen = \"127.0.0.1:1\"\nuser_range = \"62000-62999\"")
        let reply = try daemon.control(.reload)
        #expect(reply.ok)
        #expect(reply.changes?.waitingForRestart == ["supervisor.metrics_listen", "supervisor.user_range"])
        let cli = try daemon.supervisorctl(["reload"])
        #expect(cli.exitCode == 0)
        #expect(cli.stdout.contains("not applied until the next start: supervisor.metrics_listen, supervisor.user_range"), "\(cli.stdout)")
        // Still waiting at the next reload; and nothing waits once the file is as the daemon runs.
        #expect(try daemon.control(.reload).changes?.waitingForRestart == ["supervisor.metrics_listen", "supervisor.user_range"])
        try daemon.writeConfig(Self.twoHosts)
        #expect(try daemon.control(.reload).changes?.waitingForRestart == [])
    }

    /// Files that once aborted the daemon inside the C++ TOML library, taking every supervised
    /// process with it: a reload reports the syntax error and keeps the running config.
    @Test func reloadOfBrokenTOMLKeepsTheOldConfig() throws {
        let daemon = try TestDaemon(config: Self.twoHosts)
        try daemon.start()
        for (text, column) in [("[\n", 2), ("[.", 2), ("[[[", 3)] {
            try daemon.writeConfig(text)
            let reload = try daemon.supervisorctl(["reload"])
            #expect(reload.exitCode == 1)
            // The test daemon's own settings come first, so the text's line number varies.
            let positioned = try Regex("extensiond\\.toml:[0-9]+:\(column): TOML syntax error: expected a key")
            #expect(reload.stderr.contains(positioned), "\(reload.stderr)")
        }
        try daemon.writeConfig("[[[")
        daemon.process?.signal(SIGHUP)
        let positioned = try Regex("extensiond\\.toml:[0-9]+:3: TOML syntax error")
        #expect(eventually { daemon.process?.stderr.contains(positioned) == true })
        #expect(daemon.process?.isRunning == true)
        let names = try daemon.control(.status(NameSelection())).status?.map(\.name)
        #expect(names == ["panel", "com.example.app", "com.example.app.widget"])
    }

    @Test func aSecondDaemonOnTheSameRuntimeDirectoryRefuses() throws {
        let daemon = try TestDaemon()
        try daemon.start()
        let second = try runCommand(Binaries.path("extensiond"), ["--config", daemon.configPath], in: daemon.directory)
        #expect(second.exitCode == 1)
        #expect(second.stderr.contains("already running"))
        #expect(try daemon.control(.status(NameSelection())).ok)
    }
}
