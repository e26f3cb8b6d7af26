import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// A slow crossing of the low watermark with a little unmapped page cache in the tree
/// (issue 8, item 9): the v1 usage threshold fires while the working set is still just
/// below the watermark, and nothing may then keep the kill from coming once it is past.
/// The bound on crossing to kill is 1 s, a hundred re-checks (10 ms apart): it catches a
/// lost or late re-check, not a slow CPU; how fast the kill comes is `bench/pressure`'s
/// figure (a bound of 100 ms failed here when the daemon waited for a CPU at load 20).
/// Part of the serialized ``PressureTests``: two pressure scenarios at once would each
/// measure the other's load.
extension PressureTests {
    static let mebibyte: UInt64 = 1 << 20
    /// 85% of the 300M budget.
    static let low: UInt64 = 255 * mebibyte

    @Test
    func aSlowCrossingOfTheLowWatermarkEndsWithTheIdleExtensionKilledWithoutALostReCheck() throws {
        let scenario = try PressureScenario(budget: "300M") { daemon, hold in
            let creep = try daemon.directory.write("creep.py", Self.creepScript)
            return """
                [hosts.panel]
                command = ["\(PressureScenario.python)", "\(hold)", "20"]

                [apps.app]
                command = ["/bin/sleep", "1000"]

                [extensions.hog1]
                app = "app"
                point = "widget"
                command = ["\(PressureScenario.python)", "\(hold)", "110"]
                idle_exit = "10m"
                suspend_after = "0s"

                [extensions.hog2]
                app = "app"
                point = "widget"
                command = ["\(PressureScenario.python)", "\(creep)", "115", "128", "0.005", "140"]
                start_timeout = "60s"
                """
        }
        try scenario.start()
        #expect(eventually(timeout: 10) { scenario.usage(of: "hosts/panel") >= 19 * Self.mebibyte })

        var latencies: [UInt64] = []
        var slowest = ""
        for run in 1...20 {
            try control(scenario, .start(NameSelection(["hog1"])))
            let idle = try eventually(timeout: 10) {
                try scenario.state(of: "hog1") == "idle" && scenario.usage(of: "extensions/hog1") >= 109 * Self.mebibyte
            }
            try #require(idle, "run \(run): hog1 did not become idle holding 110M")
            let killsBefore = try kills(scenario).count

            let started = monotonicMicroseconds()
            try control(scenario, .start(NameSelection(["hog2"])))
            _ = try eventually(timeout: 20) { try kills(scenario).count > killsBefore }
            let newKills = try kills(scenario).dropFirst(killsBefore)
            let diagnosis = newKills.isEmpty ? try diagnosis(scenario) : ""
            let kill = try #require(newKills.first, "run \(run): no kill after hog2 grew past the low watermark; \(diagnosis)")
            #expect(kill.name == "hog1", "run \(run): the policy names the idle extension, not \(kill.name ?? "?")")
            #expect(kill.reason == "pressure")
            let record = try #require(kill.kill)
            #expect(record.treeUsageBytes ?? 0 >= Self.low)
            // From the daemon's own readings: its last one below the watermark came before
            // the crossing, so this bounds crossing to kill from above, also when the daemon
            // (or the test) waited for a CPU. The working set crept up to the watermark:
            // there is always such a reading.
            let below = try #require(record.lastBelowLowUs, "run \(run): no reading below the watermark recorded")
            #expect(below >= started, "run \(run): the reading below is from before hog2 started")
            latencies.append(record.signalUs - min(below, record.signalUs))
            if latencies.last == latencies.max() {
                // Where the time went, from the reading below: to the trigger, the decision, the signal.
                slowest =
                    "run \(run): trigger +\(Int64(record.triggerUs) - Int64(below)), decision +\(Int64(record.decisionUs) - Int64(below)), signal +\(Int64(record.signalUs) - Int64(below)) µs"
            }
            try control(scenario, .stop(NameSelection(["hog2"])))
        }
        let sorted = latencies.sorted()
        #expect(
            sorted.count == 20 && sorted.allSatisfy { $0 <= 1_000_000 },
            "last reading below the watermark to kill (µs), min \(sorted.first ?? 0) median \(sorted[sorted.count / 2]) max \(sorted.last ?? 0): \(latencies); slowest \(slowest)"
        )
    }

    private func control(_ scenario: PressureScenario, _ request: ControlRequest) throws {
        let response = try scenario.daemon.control(request)
        try #require(response.ok, "\(request): \(response.error ?? "")")
    }

    /// What the daemon saw, for a run that found no kill.
    private func diagnosis(_ scenario: PressureScenario) throws -> String {
        let report = try scenario.daemon.control(.pressure).pressure
        let states = try ["hog1", "hog2"].map { "\($0) \(try scenario.state(of: $0) ?? "?")" }
        let recent = try scenario.events().suffix(8).map { "\($0.kind.rawValue) \($0.name ?? "-"): \($0.message)" }
        return "usage \(report?.usageBytes ?? 0) of low \(report?.lowBytes ?? 0), \(states), mechanisms \(report?.mechanisms ?? []), events \(recent)"
    }

    private func kills(_ scenario: PressureScenario) throws -> [EventRecord] {
        try scenario.events().filter { $0.kind == .kill }
    }

    private func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    /// Writes 512 KiB of file data into `$TMPDIR` (unmapped page cache, charged to its cgroup), takes
    /// `base` MiB, then `step` KiB every `pause` seconds up to `total` MiB, touching every page.
    static let creepScript = #"""
        import os, sys, time

        base, step, pause, total = int(sys.argv[1]) << 20, int(sys.argv[2]) << 10, float(sys.argv[3]), int(sys.argv[4]) << 20
        with open(os.path.join(os.environ["TMPDIR"], "cache.bin"), "wb") as f:
            f.write(b"c" * (512 << 10))
        held = [b"x" * base]
        size = base
        while size < total:
            held.append(b"x" * step)
            size += step
            time.sleep(pause)
        while True:
            time.sleep(3600)
        """#
}
