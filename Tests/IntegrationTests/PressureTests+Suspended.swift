import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Jetsam's order on a real daemon: a suspended extension goes before an idle one, and
/// that one before the active grower; the frozen victim ends cleanly. Trimming at
/// `pressure.warn`: suspended extensions are asked to exit, and one that does not is
/// killed. Part of the serialized ``PressureTests``.
extension PressureTests {
    @Test func aSuspendedExtensionIsKilledFirstThenTheIdleOneThenTheActiveOne() throws {
        let scenario = try PressureScenario(budget: "256M") { daemon, hold in
            let grow = try daemon.directory.write("grow.py", PressureScenario.growScript)
            return PressureScenario.panelAndApp(hold: hold)
                // Deaf to the `terminate` of the trim at `warn`: still there at `low`, and first.
                + PressureScenario.widget(
                    "frozen", python: [hold, "40", "deaf"], "suspend_after = \"200ms\"\nidle_exit = \"10m\"\nstop_timeout = \"60s\"\npriority = 5")
                + PressureScenario.widget("idle", python: [hold, "40"], "suspend_after = \"0s\"\nidle_exit = \"10m\"")
                + PressureScenario.widget("grower", python: [grow, "4", "0.02", "240"], "start_timeout = \"60s\"")
        }
        try scenario.start()
        #expect(eventually(timeout: 10) { scenario.usage(of: "hosts/panel") >= 60 * PressureScenario.mebibyte })
        #expect(try scenario.daemon.control(.start(NameSelection(["frozen"]))).ok)
        #expect(try eventually(timeout: 10) { try scenario.state(of: "frozen") == "suspended" })
        let frozenPID = try #require(try scenario.pid(of: "frozen"))
        #expect(try scenario.daemon.control(.start(NameSelection(["idle"]))).ok)
        #expect(
            try eventually(timeout: 10) { try scenario.state(of: "idle") == "idle" && scenario.usage(of: "extensions/idle") >= 39 * PressureScenario.mebibyte })

        try scenario.startGrower()
        #expect(try eventually(timeout: 30) { try scenario.state(of: "grower") != "starting" })
        let kills = try scenario.events().filter { $0.kind == .kill }
        // The suspended one first although its priority is the highest; then the idle one.
        #expect(kills.map(\.name) == ["frozen", "idle", "grower"], "\(kills.map { "\($0.name ?? "?") \($0.message)" })")
        #expect(kills.compactMap(\.kill?.band) == ["suspendedExtension", "idleExtension", "activeExtension"])
        #expect(kills.first?.kill?.emptyUs != nil, "the frozen victim's group emptied")
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(frozenPID)"), "the frozen victim was reaped")
        #expect(try scenario.state(of: "panel") == "running")
    }

    /// `pressure.warn` at `share`, well below `low` (85 %): the page cache (Python's files) the
    /// working set leaves out can be tens of MiB of a group's usage here.
    static func warn(at share: String) -> String { "[pressure]\nwarn = \"\(share)\"\n\n" }

    /// 64 + 40 + 40 + 70 MiB of usage: past `warn` (60 %: 153.6 MiB), below `low` (217.6
    /// MiB). The suspended
    /// extension that takes `terminate` exits with reason `trim`, unkilled; the one deaf
    /// to it is killed after its `stop_timeout`, and that kill is counted.
    @Test func pastWarnASuspendedExtensionIsAskedToExitAndOneThatDoesNotIsKilled() throws {
        let scenario = try PressureScenario(budget: "256M") { _, hold in
            Self.warn(at: "60%") + PressureScenario.panelAndApp(hold: hold)
                + PressureScenario.widget("polite", python: [hold, "40"], "suspend_after = \"200ms\"\nidle_exit = \"10m\"")
                + PressureScenario.widget("deaf", python: [hold, "40", "deaf"], "suspend_after = \"200ms\"\nidle_exit = \"10m\"\nstop_timeout = \"300ms\"")
                + PressureScenario.widget("busy", python: [hold, "70"], "suspend_after = \"0s\"\nidle_exit = \"10m\"")
        }
        try scenario.start()
        #expect(eventually(timeout: 10) { scenario.usage(of: "hosts/panel") >= 60 * PressureScenario.mebibyte })
        for name in ["polite", "deaf"] {
            #expect(try scenario.daemon.control(.start(NameSelection([name]))).ok)
            #expect(try eventually(timeout: 10) { try scenario.state(of: name) == "suspended" })
        }
        #expect(try scenario.events().filter { $0.kind == .exit || $0.kind == .kill }.isEmpty, "nothing ended below warn")

        #expect(try scenario.daemon.control(.start(NameSelection(["busy"]))).ok)
        #expect(
            try eventually(timeout: 20) { try scenario.state(of: "polite") == "stopped" && scenario.state(of: "deaf") == "stopped" },
            "tree at \(scenario.usage(of: "") >> 20)M: \(((try? scenario.events()) ?? []).map { "\($0.kind) \($0.name ?? "") \($0.message)" })")
        let events = try scenario.events()
        let ends = events.filter { ($0.kind == .exit || $0.kind == .kill) && ($0.name == "polite" || $0.name == "deaf") }
        #expect(ends.filter { $0.kind == .kill }.map(\.name) == ["deaf"], "\(ends.map { "\($0.kind) \($0.name ?? "?") \($0.message)" })")
        #expect(ends.filter { $0.kind == .exit }.compactMap(\.reason).allSatisfy { $0 == "trim" })
        #expect(events.contains { $0.kind == .memoryWarning && $0.reason == "trim" && $0.message.contains("polite") })
        let stats = try scenario.daemon.control(.stats(NameSelection(["polite", "deaf"]))).stats?.processes ?? []
        #expect(stats.first { $0.name == "polite" }?.kills.isEmpty == true)
        #expect(stats.first { $0.name == "deaf" }?.kills == ["trim": 1])
        #expect(try scenario.state(of: "busy") == "idle" && scenario.state(of: "panel") == "running")
    }

    /// 64 + 135 MiB, the 135 taken at once: past `warn` (50 %: 128 MiB), below `low`. The
    /// v1 thresholds alone must announce it (seen lost under load, no warning and no trim
    /// until a reload: the crossing came while the thresholds moved after the launch's
    /// episode, or the warn threshold fired before the working set reached `warn`).
    @Test func aCrossingOfWarnIsReadWithoutAReload() throws {
        let scenario = try PressureScenario(budget: "256M") { _, hold in
            Self.warn(at: "50%") + PressureScenario.panelAndApp(hold: hold)
                + PressureScenario.widget("busy", python: [hold, "135"], "idle_exit = \"10m\"")
        }
        try scenario.start()
        #expect(eventually(timeout: 10) { scenario.usage(of: "hosts/panel") >= 60 * PressureScenario.mebibyte })
        #expect(try scenario.daemon.control(.start(NameSelection(["busy"]))).ok)
        #expect(
            try eventually(timeout: 10) { try scenario.events().contains { $0.kind == .memoryWarning && $0.reason == "warn" } },
            "tree at \(scenario.usage(of: "") >> 20)M: \(((try? scenario.events()) ?? []).map { "\($0.kind) \($0.name ?? "") \($0.message)" })")
    }

    /// 64 + 135 MiB: past `warn` (40 %: 102.4 MiB); an extension that becomes idle then is ended
    /// (reason `trim`) instead of frozen, and 10 MiB more stays below `low`. It goes as soon as
    /// it is idle, not at its `suspend_after` (a minute here), when `low` might kill it.
    @Test(arguments: ["200ms", "1m"]) func pastWarnAnIdleExtensionIsEndedInsteadOfSuspended(suspendAfter: String) throws {
        let scenario = try PressureScenario(budget: "256M") { _, hold in
            Self.warn(at: "40%") + PressureScenario.panelAndApp(hold: hold)
                + PressureScenario.widget("busy", python: [hold, "135"], "suspend_after = \"0s\"\nidle_exit = \"10m\"")
                + PressureScenario.widget("late", python: [hold, "10"], "suspend_after = \"\(suspendAfter)\"\nidle_exit = \"10m\"")
        }
        try scenario.start()
        #expect(eventually(timeout: 10) { scenario.usage(of: "hosts/panel") >= 60 * PressureScenario.mebibyte })
        #expect(try scenario.daemon.control(.start(NameSelection(["busy"]))).ok)
        #expect(try eventually(timeout: 10) { try scenario.state(of: "busy") == "idle" })
        // A reload reads the tree once more: what is tested is the suspension after a reading
        // past `warn`, not the kernel's notification of the crossing.
        #expect(try scenario.daemon.control(.reload).ok)
        #expect(
            try eventually(timeout: 10) { try scenario.events().contains { $0.kind == .memoryWarning && $0.reason == "warn" } },
            "tree at \(scenario.usage(of: "") >> 20)M: \(((try? scenario.events()) ?? []).map { "\($0.kind) \($0.name ?? "") \($0.message)" })")

        #expect(try scenario.daemon.control(.start(NameSelection(["late"]))).ok)
        #expect(try eventually(timeout: 10) { try scenario.events().contains { $0.kind == .exit && $0.name == "late" } })
        let late = try scenario.events().filter { $0.name == "late" }
        #expect(late.filter { $0.kind == .exit }.compactMap(\.reason) == ["trim"])
        #expect(!late.contains { $0.kind == .suspend || $0.kind == .kill }, "\(late.map { "\($0.kind) \($0.message)" })")
    }
}
