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
