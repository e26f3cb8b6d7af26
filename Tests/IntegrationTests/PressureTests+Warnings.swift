import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Warnings before kills (issue 11, item 7), on a real daemon whose tree has a hard limit
/// (``PressureScenario``'s sandbox): an idle extension holding a 60M cache while an active
/// one grows by 2M every 100 ms past `pressure.warn` (75% of 256M) towards `low` (85%).
/// Part of the serialized ``PressureTests``: two pressure scenarios at once would each
/// measure the other's load.
extension PressureTests {
    /// Holds `argv[1]` MiB in 1 MiB blocks; on a `memoryWarning` of level `warn`, keeps only
    /// `argv[2]` MiB of them when `argv[3]` is `free` (a cache it can rebuild).
    static let cacheScript = #"""
        import os, sys, time
        blocks = [b"x" * (1 << 20) for _ in range(int(sys.argv[1]))]
        fd = int(os.environ["EXTENSIOND_FD"])
        os.write(fd, b'{"type":"ready","protocol":1}\n')
        while True:
            data = os.read(fd, 65536)
            if not data or b'"terminate"' in data:
                break
            if b'"level":"warn"' in data and sys.argv[3] == "free":
                del blocks[int(sys.argv[2]):]
        """#

    /// Runs the scenario with the cache extension freeing (or not) on the warning, until the
    /// grower holds all it wants or the cache is killed; returns the daemon's events.
    private func warnScenario(cacheFrees: Bool) throws -> [EventRecord] {
        let scenario = try PressureScenario(budget: "256M") { daemon, hold in
            let cache = try daemon.directory.write("cache.py", Self.cacheScript)
            let grow = try daemon.directory.write("grow.py", PressureScenario.growScript)
            return """
                [hosts.panel]
                command = ["\(PressureScenario.python)", "\(hold)", "64"]

                [apps.app]
                command = ["/bin/sleep", "1000"]

                [extensions.cache]
                app = "app"
                point = "widget"
                command = ["\(PressureScenario.python)", "\(cache)", "60", "10", "\(cacheFrees ? "free" : "keep")"]
                idle_exit = "10m"
                suspend_after = "0s"

                [extensions.grower]
                app = "app"
                point = "widget"
                command = ["\(PressureScenario.python)", "\(grow)", "2", "0.1", "100"]
                start_timeout = "60s"
                """
        }
        try scenario.start()
        try #require(eventually(timeout: 10) { scenario.usage(of: "hosts/panel") >= 60 * Self.mebibyte })
        #expect(try scenario.daemon.control(.start(NameSelection(["cache"]))).ok)
        try #require(
            try eventually(timeout: 10) {
                try scenario.state(of: "cache") == "idle" && scenario.usage(of: "extensions/cache") >= 59 * Self.mebibyte
            })
        #expect(try scenario.events().filter { $0.kind == .memoryWarning }.isEmpty, "no warning below pressure.warn")
        #expect(try scenario.daemon.control(.start(NameSelection(["grower"]))).ok)
        let settled = try eventually(timeout: 30) {
            try scenario.state(of: "cache") != "idle" || scenario.usage(of: "extensions/grower") >= 100 * Self.mebibyte
        }
        #expect(settled, "the grower never reached 100M")
        usleep(1_500_000)  // the warning's one-second account of what was freed
        return try scenario.events()
    }

    @Test func anExtensionThatFreesMemoryOnTheWarningIsNotKilledAtLow() throws {
        let ignoring = try warnScenario(cacheFrees: false)
        // Today's behaviour, and the control: without freeing, the idle cache dies at low.
        #expect(ignoring.filter { $0.kind == .kill }.map(\.name) == ["cache"])
        #expect(ignoring.filter { $0.kind == .kill }.map(\.reason) == ["pressure"])

        let freeing = try warnScenario(cacheFrees: true)
        let kills = freeing.filter { $0.kind == .kill || $0.kind == .oom }
        #expect(kills.isEmpty, "\(kills.map { "\($0.name ?? "?"): \($0.message)" })")
        let warnings = freeing.filter { $0.kind == .memoryWarning && $0.reason == "warn" }
        // One crossing, one warning (to the only extension that is ready: the grower never
        // sends ready), then the account of what it freed.
        #expect(warnings.count == 2, "\(warnings.map(\.message))")
        #expect(warnings.first?.message.contains("warned 1 extensions (cache ") == true, "\(warnings.first?.message ?? "")")
        // The account of what was freed, taken one second after the warning: "(cache 25M→12M)".
        // How much the cache held when warned, and whether it had freed by then, depend on the
        // load (a loaded CI machine once saw 13M→13M); the outcome that matters is above: the
        // cache freed in time not to be killed at low.
        let account = warnings.last?.message ?? ""
        let figures = account.split(separator: "(cache ").last?.split(separator: "M").compactMap { Int($0.trimmingPrefix("→")) } ?? []
        #expect(figures.count == 2 && figures[1] <= figures[0], "\(account)")
    }
}
