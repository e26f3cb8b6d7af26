import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Jetsam's order on a real daemon: a suspended extension goes before an idle one, and
/// that one before the active grower; the frozen victim (thawed by the kill on v1) ends
/// cleanly. Part of the serialized ``PressureTests``.
extension PressureTests {
    @Test func aSuspendedExtensionIsKilledFirstThenTheIdleOneThenTheActiveOne() throws {
        let scenario = try PressureScenario(budget: "256M") { daemon, hold in
            let grow = try daemon.directory.write("grow.py", PressureScenario.growScript)
            return PressureScenario.panelAndApp(hold: hold)
                + PressureScenario.widget("frozen", python: [hold, "40"], "suspend_after = \"200ms\"\nidle_exit = \"10m\"\npriority = 5")
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
}
