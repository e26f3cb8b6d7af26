import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Admission against memory on a real daemon (docs/POLICIES.md): a widget refreshed every
/// second by its schedule stops being refreshed, spending no token, while the tree is past
/// `pressure.warn`, and resumes once it is back under it. Part of the serialized
/// ``PressureTests``.
extension PressureTests {
    /// The ballast's working set may reach warn after its usage did (the kernel announces
    /// only the latter): the daemon reads the tree again every second until it sees it.
    @Test
    func scheduledRefreshesWaitWhileTheTreeIsPastWarnAndResumeAfter() throws {
        var updates = ""
        let scenario = try PressureScenario(budget: "256M") { daemon, hold in
            updates = daemon.sharedDirectory + "/clock.updates"
            let clock = try ScriptedExtension.command(.answer, in: daemon.directory, countFile: updates)
            return PressureScenario.panelAndApp(hold: hold) + """
                [apps.ballast]
                command = ["\(PressureScenario.python)", "\(hold)", "140"]

                [extensions.clock]
                app = "app"
                point = "widget"
                command = \(clock)
                suspend_after = "0s"

                [extensions.clock.sandbox]
                write = ["\(daemon.sharedDirectory)"]

                [extensions.clock.refresh]
                interval = "1s"
                min_interval = "1s"
                jitter = "0s"
                daily_budget = 100000
                budget_burst = 1000
                """
        }
        try scenario.start()
        #expect(eventually(timeout: 10) { scenario.usage(of: "hosts/panel") >= 60 * PressureScenario.mebibyte })
        #expect(try scenario.daemon.control(.pull(PullRequest(name: "clock", mode: .compact))).ok)
        let scheduled = { ScriptedExtension.updates(in: updates) }
        #expect(eventually(timeout: 10) { scheduled() >= 3 }, "the schedule refreshes every second")

        // 64M + 140M + the daemon: past warn (192M), below low (217M): nothing is killed.
        #expect(try scenario.daemon.control(.start(NameSelection(["ballast"]))).ok)
        #expect(eventually(timeout: 10) { scenario.usage(of: "apps/ballast") >= 130 * PressureScenario.mebibyte })
        Thread.sleep(forTimeInterval: 1.5)  // the reading that holds the schedule, and an update already in flight
        let held = scheduled()
        let budget = try scenario.daemon.control(.stats(NameSelection(["clock"]))).stats?.processes.first?.budgetLeft
        Thread.sleep(forTimeInterval: 3)
        #expect(scheduled() == held, "refreshed while the tree was past warn")
        #expect(
            try scenario.daemon.control(.stats(NameSelection(["clock"]))).stats?.processes.first?.budgetLeft ?? 0 >= budget ?? .max,
            "a held refresh spent a token")
        #expect(try scenario.events().filter { $0.kind == .kill }.isEmpty)

        #expect(try scenario.daemon.control(.stop(NameSelection(["ballast"]))).ok)
        #expect(eventually(timeout: 10) { scheduled() >= held + 2 }, "the schedule did not resume once under warn")
    }
}
