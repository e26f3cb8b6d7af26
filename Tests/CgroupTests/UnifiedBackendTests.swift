import Cgroup
import ExtensiondTestSupport
import LinuxProcess
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The v2 backend's file operations against a fake tree: these machines have
/// no v2 memory controller (see ``FakeCgroupTree``).
@Suite struct UnifiedBackendTests {
    @Test func prepareMovesTheDaemonIntoSupervisorAndTheSubtreesBelowSupervised() throws {
        let fake = try FakeCgroupTree()
        let tree = CgroupTree(unifiedRoot: fake.root)
        try tree.prepare()
        // Each pid is its own write; a plain file keeps only the last one.
        #expect(fake.read("supervisor/cgroup.procs") == "\(FakeCgroupTree.fakePids[1])")
        #expect(fake.read("cgroup.subtree_control") == "+memory +pids +cpu")
        #expect(fake.read("supervised/cgroup.subtree_control") == "+memory +pids +cpu")
        for kind in CgroupKind.allCases {
            #expect(fake.read("supervised/\(kind.rawValue)/cgroup.subtree_control") == "+memory +pids +cpu")
        }
        #expect(tree.supervisor.directories == ["\(fake.root)/supervisor"])
    }

    @Test func prepareWithoutTheMemoryControllerIsAClearError() throws {
        let fake = try FakeCgroupTree(controllers: "cpu io")
        #expect(throws: CgroupError.noMemoryController("\(fake.root)/cgroup.controllers does not list memory")) {
            try CgroupTree(unifiedRoot: fake.root).prepare()
        }
    }

    @Test func limitsAndReadingsUseTheV2Files() throws {
        let fake = try FakeCgroupTree()
        let tree = CgroupTree(unifiedRoot: fake.root)
        #expect(tree.version == .v2)
        fake.addCgroup("supervised/extensions/w")
        let group = try tree.group(.extensions, id: "w")
        #expect(group.spawnPlacement == .cloneInto(directory: "\(fake.root)/supervised/extensions/w"))

        try group.apply(
            CgroupLimits(
                memoryMax: 32 << 20, memoryHigh: 24 << 20, memoryLow: 8 << 20, pidsMax: 8,
                cpuQuota: .init(microseconds: 20_000, periodMicroseconds: 100_000), cpuWeight: 50))
        #expect(fake.read("supervised/extensions/w/cpu.max") == "20000 100000")
        #expect(fake.read("supervised/extensions/w/cpu.weight") == "50")
        #expect(fake.read("supervised/extensions/w/memory.max") == "33554432")
        #expect(fake.read("supervised/extensions/w/memory.high") == "25165824")
        #expect(fake.read("supervised/extensions/w/memory.low") == "8388608")
        #expect(fake.read("supervised/extensions/w/pids.max") == "8")
        #expect(try group.memoryMax() == 32 << 20)
        try group.apply(CgroupLimits())
        #expect(fake.read("supervised/extensions/w/memory.max") == "max")
        #expect(fake.read("supervised/extensions/w/memory.high") == "max")
        #expect(fake.read("supervised/extensions/w/memory.low") == "0")
        #expect(fake.read("supervised/extensions/w/pids.max") == "max")
        #expect(fake.read("supervised/extensions/w/cpu.max") == "max")
        #expect(fake.read("supervised/extensions/w/cpu.weight") == "100")
        #expect(try group.memoryMax() == nil)

        fake.write("7340032\n", to: "supervised/extensions/w/memory.current")
        fake.write("9437184\n", to: "supervised/extensions/w/memory.peak")
        fake.write("low 0\nhigh 4\nmax 2\noom 1\noom_kill 1\noom_group_kill 0\n", to: "supervised/extensions/w/memory.events")
        #expect(try group.memoryUsage() == 7 << 20)
        #expect(try group.memoryPeak() == 9 << 20)
        #expect(try group.memoryEvents() == MemoryEvents(oomKills: 1, ooms: 1, high: 4, max: 2))
    }

    @Test func killWritesCgroupKillAndReportsTheMembers() throws {
        let fake = try FakeCgroupTree()
        fake.addCgroup("supervised/apps/a")
        let group = try CgroupTree(unifiedRoot: fake.root).group(.apps, id: "a")
        let listing = FakeCgroupTree.fakePids.map { "\($0)\n" }.joined()
        fake.write(listing, to: "supervised/apps/a/cgroup.procs")
        fake.write(listing, to: "supervised/apps/a/cgroup.threads")
        #expect(try group.kill() == FakeCgroupTree.fakePids)
        #expect(fake.read("supervised/apps/a/cgroup.kill") == "1")
        #expect(try group.isEmpty() == false)
    }

    @Test func memoryEventsAndPopulationChangesWakeTheirWatches() throws {
        let fake = try FakeCgroupTree()
        fake.addCgroup("supervised/extensions/e")
        let group = try CgroupTree(unifiedRoot: fake.root).group(.extensions, id: "e")
        let events = try group.oomEvents()
        let population = try #require(try group.populationWatch())
        #expect(events.readiness == .readable)
        #expect(try events.acknowledge() == 0)
        #expect(try events.wait(timeout: .zero) == false)

        fake.write("low 0\nhigh 0\nmax 1\noom 1\noom_kill 1\noom_group_kill 0\n", to: "supervised/extensions/e/memory.events")
        #expect(try events.wait(timeout: .seconds(1)))
        #expect(try events.acknowledge() >= 1)
        #expect(try events.acknowledge() == 0)
        #expect(try group.memoryEvents().oomKills == 1)

        #expect(try population.wait(timeout: .zero) == false)
        fake.write("populated 0\nfrozen 0\n", to: "supervised/extensions/e/cgroup.events")
        #expect(try population.wait(timeout: .seconds(1)))
    }

    @Test func pressureTriggerIsWrittenWithItsTrailingNul() throws {
        let fake = try FakeCgroupTree()
        fake.addCgroup("supervised/extensions/p")
        let group = try CgroupTree(unifiedRoot: fake.root).group(.extensions, id: "p")
        let trigger = try group.pressureTrigger(PressureTriggerRule(.full, stall: .milliseconds(50), window: .seconds(1)))
        #expect(trigger.readiness == .priority)
        #expect(fake.read("supervised/extensions/p/memory.pressure") == "full 50000 1000000\u{0}")
    }

    @Test func v1OnlyNotificationsAreUnsupportedWithAnAlternative() throws {
        let fake = try FakeCgroupTree()
        let root = CgroupTree(unifiedRoot: fake.root).root
        let threshold = try #require(throws: CgroupError.self) { try root.usageThreshold(1 << 20) }
        #expect(
            threshold.description
                == "a usage threshold (1048576 bytes) is not available with cgroup v2; set memory_high and watch memory.events, or use a PSI trigger")
        #expect(throws: CgroupError.self) { try root.pressureLevel(.medium) }
    }

    @Test func malformedEventsFileNamesThePath() throws {
        let fake = try FakeCgroupTree()
        fake.addCgroup("supervised/hosts/h")
        let group = try CgroupTree(unifiedRoot: fake.root).group(.hosts, id: "h")
        fake.write("oom_kill lots\n", to: "supervised/hosts/h/memory.events")
        #expect(
            throws: CgroupError.malformed(
                path: "\(fake.root)/supervised/hosts/h/memory.events", content: "oom_kill lots\n", expected: "\"<key> <number>\" lines")
        ) {
            try group.memoryEvents()
        }
    }
}
