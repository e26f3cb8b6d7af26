import ControlProtocol
import ExtensiondPolicy
import ExtensiondTestSupport
import Foundation
import Testing

/// Memory pressure on a real daemon in a cgroup sandbox (DESIGN §3): extensions die
/// before the host, one at a time, in policy order, and every kill is accounted for.
@Suite(.serialized) struct PressureTests {
    @Test func idleExtensionsGoFirstThenTheActiveOnePastCriticalAndTheHostSurvives() throws {
        let scenario = try PressureScenario(growerStep: 2, pause: 0.02, total: 240)
        try scenario.startHostAndIdleExtensions()
        let hostPID = try scenario.pid(of: "panel")
        #expect(try scenario.events().filter { $0.kind == .kill }.isEmpty, "no kill below the low watermark")

        try scenario.startGrower()
        let finished = try eventually(timeout: 30) { try scenario.state(of: "grower") != "starting" }
        #expect(finished, "the growing extension was never killed")

        let kills = try scenario.recordedKills()
        // Exactly the three idle extensions in policy order, then the active one: no surplus.
        #expect(kills.map(\.name) == PressureScenario.idleByKillOrder + ["grower"], "\(scenario.pressureHistory())")
        #expect(kills.map(\.reason) == ["pressure", "pressure", "pressure", "critical"])
        for kill in kills {
            let record = try #require(kill.kill, "kill of \(kill.name ?? "?") without a record")
            let usage = try #require(record.treeUsageBytes)
            #expect(usage >= PressureScenario.low, "\(kill.name ?? "?") killed below the low watermark at \(usage)")
            #expect(record.budgetBytes == PressureScenario.budget)
            #expect(record.band == (kill.name == "grower" ? "activeExtension" : "idleExtension"))
            // Growth counts from `ready` (the idle ones held their 40M by then), and from
            // the launch while an extension starts: all the grower holds.
            if kill.name == "grower" {
                #expect(record.growthBytes == record.rssBytes)
            } else {
                #expect((record.growthBytes ?? .max) < KillPolicy.growthThreshold, "\(kill.name ?? "?") grew \(record.growthBytes ?? 0)")
            }
        }
        let activeUsage = try #require(kills.last?.kill?.treeUsageBytes)
        #expect(activeUsage >= PressureScenario.critical, "the active extension was killed below critical, at \(activeUsage)")
        #expect(try scenario.state(of: "panel") == "running")
        #expect(try scenario.pid(of: "panel") == hostPID)
        #expect(scenario.usage(of: "") < PressureScenario.low)
    }

    @Test func killRecordsCarryFourOrderedTimestamps() throws {
        let scenario = try PressureScenario(growerStep: 4, pause: 0.02, total: 240)
        try scenario.startHostAndIdleExtensions()
        try scenario.startGrower()
        #expect(try eventually(timeout: 30) { try scenario.state(of: "grower") != "starting" })
        let records = try scenario.recordedKills().compactMap(\.kill)
        #expect(records.count == 4, "\(scenario.pressureHistory())")
        for record in records {
            let empty = try #require(record.emptyUs, "a victim's cgroup did not empty within 100 ms")
            #expect(record.triggerUs <= record.decisionUs)
            #expect(record.decisionUs <= record.signalUs)
            #expect(record.signalUs <= empty)
            #expect(record.rssBytes ?? 0 > 0)
            #expect(record.psiSomeAvg10 != nil)
        }
    }

    @Test func aFastAllocatorNeverCostsTheHost() throws {
        // One allocation far past the budget: faster than any watermark can be acted on.
        let scenario = try PressureScenario(growerStep: 300, pause: 0, total: 300)
        try scenario.startHostAndIdleExtensions()
        let hostPID = try scenario.pid(of: "panel")
        try scenario.startGrower()
        #expect(try eventually(timeout: 30) { try scenario.state(of: "grower") != "starting" })

        let events = try scenario.events()
        #expect(!events.contains { $0.name == "panel" && [.kill, .oom, .exit].contains($0.kind) })
        for kill in events where kill.kind == .kill || kill.kind == .oom {
            #expect(kill.name != "panel")
        }
        #expect(try scenario.state(of: "panel") == "running")
        #expect(try scenario.pid(of: "panel") == hostPID)
    }

    /// File data no process maps can always be dropped or written back: it is not the
    /// working set the budget is about.
    @Test func fileCacheFilledByTheHostCostsNoExtension() throws {
        var done = ""
        // The host and the idle extensions hold about 205M with their interpreters, within a
        // few MiB of the 256M budget's low mark; a budget of 288M leaves the test a margin
        // that the host's file writes (and their kernel memory) cannot eat.
        let scenario = try PressureScenario(growerStep: 1, pause: 1, total: 1, budget: "288M") { hold in
            let file = hold + ".cache"
            done = file + ".done"
            return """

                [hosts.reader]
                command = ["/bin/sh", "-c", "dd if=/dev/zero of=\(file) bs=1M count=150 2>/dev/null && touch \(done) && exec sleep 1000"]
                autostart = false
                """
        }
        try scenario.startHostAndIdleExtensions()
        #expect(try scenario.daemon.control(.start(NameSelection(["reader"]))).ok)
        #expect(eventually(timeout: 30) { FileManager.default.fileExists(atPath: done) })
        // Usage with the cache is past the low watermark; what counts is below it.
        let report = try #require(try scenario.daemon.control(.pressure).pressure)
        let low = try #require(report.lowBytes)
        #expect(scenario.usage(of: "") >= low)
        #expect(report.usageBytes < low, "working set \(report.usageBytes), low \(low)")
        usleep(500_000)
        let kills = try scenario.events().filter { $0.kind == .kill || $0.kind == .oom }
        #expect(kills.isEmpty, "\(kills.map { "\($0.name ?? "?"): \($0.message)" })")
        for name in PressureScenario.idleByKillOrder {
            #expect(try scenario.state(of: name) == "idle")
        }
    }

    @Test func pressureReportShowsBudgetWatermarksAndMechanisms() throws {
        let scenario = try PressureScenario(growerStep: 1, pause: 1, total: 1)
        try scenario.start()
        let report = try #require(try scenario.daemon.control(.pressure).pressure)
        #expect(report.cgroupBackend == "v1")
        #expect(report.budgetBytes == PressureScenario.budget)
        #expect(report.warnBytes == PressureScenario.budget * 75 / 100)
        #expect(report.lowBytes == PressureScenario.low)
        #expect(report.criticalBytes == PressureScenario.critical)
        #expect(report.level == "none")
        #expect(report.mechanisms.contains { $0.hasPrefix("v1 usage threshold eventfds at warn, at low less its re-check band and at critical") })
        #expect(report.mechanisms.contains { $0.hasPrefix("re-checks every 10ms while the working set is at or above") })
        #expect(report.mechanisms.contains { $0.hasPrefix("v1 memory.pressure_level") })
        #expect(report.psi["some avg10"] != nil)

        let text = try scenario.daemon.supervisorctl(["pressure"])
        #expect(text.exitCode == 0)
        #expect(text.stdout.contains("watermarks warn 192M, low 217M, critical 243M"))
        let json = try scenario.daemon.supervisorctl(["pressure", "--json"])
        #expect(try ControlCodec.decode(ControlResponse.self, from: Array(json.stdout.utf8)).pressure?.budgetBytes == PressureScenario.budget)
    }

    @Test func aPSIWindowTheKernelRefusesStopsTheDaemonNamingTheRule() throws {
        let scenario = try PressureScenario(
            growerStep: 1, pause: 1, total: 1,
            extraConfig: { _ in
                "\n[pressure]\npsi = \"some 100ms 1s\"\n"
            })
        let run = try runCommand(Binaries.path("extensiond"), ["--config", scenario.daemon.configPath], in: scenario.daemon.directory)
        #expect(run.exitCode != 0)
        #expect(run.stderr.contains(#"pressure.psi = "some 100ms 1s""#), "stderr: \(run.stderr)")
        #expect(run.stderr.contains("multiple of 2 s"), "stderr: \(run.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: scenario.sandbox.memoryDirectory).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: scenario.sandbox.memoryDirectory + "/" + name, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        #expect(left.isEmpty, "a refused start leaves no group: \(left)")
    }

    @Test func anExtensionPastItsMemoryHighIsWarned() throws {
        var received = ""
        let scenario = try PressureScenario(growerStep: 1, pause: 1, total: 1) { hold in
            // The extension runs under its app's uid, sandboxed: it writes where it may.
            let shared = (hold as NSString).deletingLastPathComponent + "/shared"
            received = shared + "/heavy.received"
            return """

                [extensions.heavy]
                app = "app"
                point = "widget"
                command = ["\(PressureScenario.python)", "\(hold)", "24", "\(received)"]
                memory_high = "16M"
                sandbox = { write = ["\(shared)"] }
                """
        }
        try scenario.start()
        #expect(try scenario.daemon.control(.start(NameSelection(["heavy"]))).ok)
        #expect(try eventually(timeout: 10) { try scenario.events().contains { $0.kind == .memoryWarning && $0.name == "heavy" } })
        #expect(
            eventually(timeout: 5) {
                (try? String(contentsOfFile: received, encoding: .utf8))?.contains(#""type":"memoryWarning""#) == true
            })
        #expect(try scenario.events().filter { $0.kind == .memoryWarning }.count == 1, "one warning per crossing")
    }
}
