import ControlProtocol
import ExtensiondPolicy
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// The kill order weighs growth (docs/POLICIES.md): on a real daemon in the cgroup sandbox
/// of ``PressureScenario``, an idle extension launched after three idle bystanders grows
/// past `pressure.low`. It is the most recently used of the four, yet it alone is killed.
/// Part of the serialized ``PressureTests``: two pressure scenarios at once would each
/// measure the other's load.
extension PressureTests {
    /// Says `ready` (so it is idle), waits 0.2 s so that the daemon has seen it become idle
    /// before it grows, then takes `argv[1]` MiB every `argv[2]` s up to `argv[3]` MiB.
    static let idleGrowScript = #"""
        import os, sys, time
        fd = int(os.environ["EXTENSIOND_FD"])
        os.write(fd, b'{"type":"ready","protocol":1}\n')
        time.sleep(0.2)
        step, pause, total = int(sys.argv[1]) << 20, float(sys.argv[2]), int(sys.argv[3]) << 20
        held = []
        while len(held) * step < total:
            held.append(b"x" * step)
            time.sleep(pause)
        while True:
            data = os.read(fd, 65536)
            if not data or b'"terminate"' in data:
                break
        """#

    @Test func anIdleExtensionThatGrowsIsTheOnlyKillThoughLaunchedLast() throws {
        // The standard host and idle extensions (its active grower is never started),
        // plus `leaker`, which grows 2M every 20 ms once idle.
        let scenario = try PressureScenario(growerStep: 1, pause: 1, total: 1) { hold in
            """

            [extensions.leaker]
            app = "app"
            point = "widget"
            command = ["\(PressureScenario.python)", "\((hold as NSString).deletingLastPathComponent)/idle-grow.py", "2", "0.02", "160"]
            idle_exit = "10m"
            suspend_after = "0s"
            """
        }
        _ = try scenario.daemon.directory.write("idle-grow.py", Self.idleGrowScript)
        try scenario.startHostAndIdleExtensions()
        let bystanders = PressureScenario.idleByKillOrder
        let pids = try Dictionary(uniqueKeysWithValues: (bystanders + ["panel"]).map { ($0, try #require(try scenario.pid(of: $0))) })

        #expect(try scenario.daemon.control(.start(NameSelection(["leaker"]))).ok)
        let killed = try eventually(timeout: 30) { try scenario.events().contains { $0.kind == .kill } }
        let leakerState = try scenario.state(of: "leaker") ?? "?"
        try #require(killed, "nothing was killed; leaker is \(leakerState)")
        // Later kills would come within an episode or two: give them the time to show.
        usleep(1_000_000)

        let kills = try scenario.events().filter { $0.kind == .kill || $0.kind == .oom }
        #expect(kills.map(\.name) == ["leaker"], "the grower first and alone: \(kills.map { "\($0.name ?? "?"): \($0.message)" })")
        let record = try #require(kills.first?.kill)
        #expect(kills.first?.reason == "pressure" && record.band == "idleExtension")
        #expect((record.growthBytes ?? 0) >= KillPolicy.growthThreshold, "growth \(record.growthBytes ?? 0)")
        #expect((record.treeUsageBytes ?? 0) >= PressureScenario.low)
        for name in bystanders {
            #expect(try scenario.state(of: name) == "idle", "\(name) survives")
            #expect(try scenario.pid(of: name) == pids[name], "\(name) was not restarted")
        }
        #expect(try scenario.pid(of: "panel") == pids["panel"])
        #expect(scenario.usage(of: "") < PressureScenario.low)
    }
}
