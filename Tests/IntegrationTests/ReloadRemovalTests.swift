import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// A reload that removes a running process, or gives its name to another kind, stops it
/// like `stop` does: SIGTERM, the kill after `stop_timeout`, its exit event and its group
/// removed. (Found by `make fuzz`: the process was forgotten, kept running until the
/// daemon exited, and its group stayed behind.)
@Suite struct ReloadRemovalTests {
    static func config(_ extensionTable: String) -> String {
        """
        [apps.a]
        command = ["/bin/sleep", "1000"]

        \(extensionTable)
        """
    }

    static let stubborn = """
        [extensions.e]
        app = "a"
        point = "widget"
        command = ["/bin/sh", "-c", "trap '' TERM; while :; do sleep 1; done"]
        stop_timeout = "300ms"
        """

    @Test(arguments: ["", "[apps.e]\ncommand = [\"/bin/sleep\", \"1000\"]"])
    func aRemovedProcessIsStoppedAndItsGroupRemoved(replacement: String) throws {
        let daemon = try TestDaemon()
        try daemon.writeConfig(Self.config(Self.stubborn))
        try daemon.start()
        #expect(try daemon.supervisorctl(["start", "e"]).exitCode == 0)
        let group = daemon.sandbox.memoryDirectory + "/extensions/e"
        var pids: [pid_t] = []
        #expect(
            eventually {
                pids = processes(in: group); return !pids.isEmpty
            })

        try daemon.writeConfig(Self.config(replacement))
        #expect(try daemon.control(.reload).ok)
        #expect(eventually(timeout: 5) { pids.allSatisfy { !isAlive($0) } }, "still alive: \(pids.filter(isAlive))")
        #expect(eventually { !FileManager.default.fileExists(atPath: group) })
        let exits = try daemon.control(.events(LogRequest(lines: 100))).events?.filter { $0.kind == .exit && $0.name == "e" } ?? []
        #expect(exits.map(\.reason) == ["removed"], "\(exits)")

        // Back in the config while nothing of it runs: it starts in a fresh group.
        try daemon.writeConfig(Self.config(Self.stubborn))
        #expect(try daemon.control(.reload).ok)
        #expect(try daemon.supervisorctl(["start", "e"]).exitCode == 0)
        #expect(eventually { !processes(in: group).isEmpty })
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: group))
    }

    /// A widget removed and configured again while its old run still exits: a pull that
    /// came meanwhile is served by a new run, not failed with the old run's end. (Seen as
    /// version 0 in `RemovedAppTests` under load, where the old run was slow to exit.)
    @Test func aPullOfAWidgetConfiguredAgainWhileItsOldRunExitsGetsANewRun() throws {
        let daemon = try TestDaemon()
        // Takes a second to exit after `terminate`: the reload that brings it back comes first.
        let widget = """
            [extensions.e]
            app = "a"
            point = "widget"
            command = \(try ScriptedExtension.command(.lingerOnTerminate, in: daemon.directory))
            """
        try daemon.writeConfig(Self.config(widget))
        try daemon.start()
        let first = try #require(try daemon.control(.pull(PullRequest(name: "e"))).pull)
        let oldPID = try #require(try daemon.control(.status(NameSelection(["e"]))).status?.first?.pid)
        #expect(first.result == "newData")

        try daemon.writeConfig(Self.config(""))
        #expect(try daemon.control(.reload).ok)
        try daemon.writeConfig(Self.config(widget))
        #expect(try daemon.control(.reload).ok)
        #expect(isAlive(oldPID), "the old run exited before the widget was configured again")
        let pulled = try #require(try daemon.control(.pull(PullRequest(name: "e"))).pull)
        #expect(pulled.result == "newData", "\(pulled.error ?? "no error")")
        let newPID = try #require(try daemon.control(.status(NameSelection(["e"]))).status?.first?.pid)
        #expect(newPID != oldPID)
        #expect(pulled.snapshot == .object(["n": .number(1), "pid": .number(Double(newPID))]), "\(String(describing: pulled.snapshot))")
        let exits = try daemon.control(.events(LogRequest(lines: 100))).events?.filter { $0.kind == .exit && $0.name == "e" } ?? []
        #expect(exits.map(\.reason) == ["removed"], "\(exits.map(\.message))")
    }

    /// A widget whose config changed, stopped by `update`: a pull that comes while its old
    /// run still exits is served by a run of the new config, not failed with the old run's end.
    @Test func aPullOfAWidgetUpdateIsStoppingGetsARunOfTheNewConfig() throws {
        let daemon = try TestDaemon()
        let command = try ScriptedExtension.command(.lingerOnTerminate, in: daemon.directory)
        let widget = { (idleExit: String) in
            """
            [extensions.e]
            app = "a"
            point = "widget"
            command = \(command)
            idle_exit = "\(idleExit)"
            """
        }
        try daemon.writeConfig(Self.config(widget("10m")))
        try daemon.start()
        #expect(try daemon.control(.pull(PullRequest(name: "e"))).pull?.result == "newData")
        let oldPID = try #require(try daemon.control(.status(NameSelection(["e"]))).status?.first?.pid)

        try daemon.writeConfig(Self.config(widget("9m")))
        #expect(try daemon.control(.update).ok)
        #expect(isAlive(oldPID), "the old run exited before the pull: the test proves nothing")
        // The expanded mode has no snapshot yet: the pull needs a run.
        let pulled = try #require(try daemon.control(.pull(PullRequest(name: "e", mode: .expanded))).pull)
        #expect(pulled.result == "newData", "\(pulled.error ?? "no error")")
        let newPID = try #require(try daemon.control(.status(NameSelection(["e"]))).status?.first?.pid)
        #expect(newPID != oldPID)
        let exits = try daemon.control(.events(LogRequest(lines: 100))).events?.filter { $0.kind == .exit && $0.name == "e" } ?? []
        #expect(exits.map(\.reason) == ["changed"], "\(exits.map(\.message))")
    }

    @Test func aShutdownWaitsForAProcessTheReloadIsStillStopping() throws {
        let daemon = try TestDaemon()
        try daemon.writeConfig(Self.config(Self.stubborn.replacingOccurrences(of: "300ms", with: "3s")))
        try daemon.start()
        #expect(try daemon.supervisorctl(["start", "e"]).exitCode == 0)
        let group = daemon.sandbox.memoryDirectory + "/extensions/e"
        var pids: [pid_t] = []
        #expect(
            eventually {
                pids = processes(in: group); return !pids.isEmpty
            })

        try daemon.writeConfig(Self.config(""))
        #expect(try daemon.control(.reload).ok)
        #expect(daemon.stop() == 0)
        #expect(pids.allSatisfy { !isAlive($0) }, "still alive: \(pids.filter(isAlive))")
        #expect(!FileManager.default.fileExists(atPath: group))
    }
}
