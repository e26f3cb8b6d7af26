import ControlProtocol
import ExtensiondTestSupport
import Testing

/// `pressure.trim_wait` when one reading both trims and finds `low` (the foreground app
/// jumped from below `warn` past `low`): on cgroup v1, where nothing is throttled at `low`,
/// the suspended widget that reading asked to exit is given its time and exits by itself;
/// past `critical` it is killed at once. Part of the serialized ``PressureTests``.
extension PressureTests {
    /// 64 + 60 MiB under a 1 GiB budget, then a reload to 180 MiB: its first reading is past
    /// `low` (50 %: 90 MiB; `warn` 45 %) with the widget suspended, and under `warn` without
    /// it. At `critical` 55 % (99 MiB) that reading is past `critical` too.
    @Test(arguments: [(critical: "95%", killed: false), (critical: "55%", killed: true)])
    func aReadingThatTrimsAndFindsLowLetsTheTrimmedWidgetExit(critical: String, killed: Bool) throws {
        var processes = ""
        let scenario = try PressureScenario(budget: "1G") { _, hold in
            processes =
                "[pressure]\nlow = \"50%\"\ncritical = \"\(critical)\"\ntrim_wait = \"5s\"\n\n" + PressureScenario.panelAndApp(hold: hold)
                + PressureScenario.widget("polite", python: [hold, "60"], "suspend_after = \"200ms\"\nidle_exit = \"10m\"")
            return processes
        }
        try scenario.start()
        #expect(eventually(timeout: 10) { scenario.usage(of: "hosts/panel") >= 60 * PressureScenario.mebibyte })
        #expect(try scenario.daemon.control(.start(NameSelection(["polite"]))).ok)
        #expect(try eventually(timeout: 10) { try scenario.state(of: "polite") == "suspended" })

        try scenario.daemon.writeConfig(
            processes, supervisor: "cgroup = \"\(scenario.sandbox.memoryDirectory)\"\nmemory_budget = \"180M\"")
        #expect(try scenario.daemon.control(.reload).ok)
        #expect(
            try eventually(timeout: 20) { try scenario.state(of: "polite") == "stopped" },
            "tree at \(scenario.usage(of: "") >> 20)M: \(((try? scenario.events()) ?? []).map { "\($0.kind) \($0.name ?? "") \($0.message)" })")
        // A pressure kill goes on record after its victim's exit (``PressureScenario/recordedKills(timeout:)``).
        _ = try scenario.recordedKills()
        let events = try scenario.events()
        let trim = events.firstIndex { $0.kind == .memoryWarning && $0.reason == "trim" && $0.message.contains("polite") }
        #expect(trim != nil, "the reading past low trimmed the widget")
        let kills = events.filter { $0.kind == .kill && $0.name == "polite" }
        let exits = events.filter { $0.kind == .exit && $0.name == "polite" }
        let described = (kills + exits).map { "\($0.kind) \($0.reason ?? "") \($0.message)" }
        if killed {
            #expect(kills.map(\.reason) == ["critical"] && kills.first?.kill?.band == "suspendedExtension", "\(described)")
        } else {
            #expect(kills.isEmpty && exits.map(\.reason) == ["trim"], "\(described)")
            let stats = try scenario.daemon.control(.stats(NameSelection(["polite"]))).stats?.processes ?? []
            #expect(stats.first?.kills.isEmpty == true, "\(stats)")
        }
        #expect(try scenario.state(of: "panel") == "running")
    }
}
