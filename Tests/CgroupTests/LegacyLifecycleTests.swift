import Cgroup
import ExtensiondTestSupport
import LinuxProcess
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Real processes in real v1 cgroups: OOM kills, thresholds, killing trees,
/// stale groups.
@Suite struct LegacyLifecycleTests {
    @Test func allocationPastMemoryMaxIsOOMKilledInsideItsGroupAndReported() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.extensions, id: "hog")
        try group.setMemoryMax(16 << 20)
        let oom = try group.oomEvents()
        #expect(try group.memoryEvents().oomKills == 0)
        #expect(try oom.wait(timeout: .zero) == false)

        // tail keeps a newline-free line whole: it grows until the limit stops it.
        let hog = try spawnShell("head -c 64M /dev/zero | tail", in: group)
        defer { reap(hog) }
        let status = try hog.descriptor.waitForExit()

        // The kernel's OOM killer chooses among the group's processes (all at oom_score_adj
        // 1000): usually tail, which grew, and then the shell reports 137; which one it
        // chose is the kernel's business, that it killed inside the group is ours.
        #expect(status == .exited(code: 128 + SIGKILL) || status == .killed(signal: SIGKILL, dumpedCore: false), "\(status)")
        #expect(try oom.wait(timeout: .seconds(5)))
        #expect(try oom.acknowledge() >= 1)
        let events = try group.memoryEvents()
        #expect(events.oomKills >= 1, "\(events)")
        let peak = try group.memoryPeak()
        #expect(peak >= 15 << 20, "peak \(peak)")
        // The group's own limit was hit, never the tree's around it.
        #expect(events.max ?? 0 > 0, "\(events)")
        let rootEvents = try fixture.tree.root.memoryEvents()
        #expect(rootEvents.max == 0, "\(rootEvents)")
    }

    @Test func usageThresholdFiresWhenAProcessCrossesIt() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.extensions, id: "grower")
        try group.setMemoryMax(96 << 20)
        let threshold = try group.usageThreshold(8 << 20)
        #expect(try threshold.acknowledge() == 0)

        let output = DescriptorPair.socketPair()
        let grower = try Spawner.spawn(
            SpawnRequest(
                executable: "/usr/bin/python3",
                arguments: ["-c", "import time\nb=bytearray(32<<20)\nprint('grown',flush=True)\ntime.sleep(30)"],
                cgroup: group.spawnPlacement, standardOutput: output.childEnd
            ))
        defer { reap(grower) }
        #expect(try threshold.wait(timeout: .seconds(10)))
        #expect(try threshold.acknowledge() >= 1)
        #expect(output.readLines(1) == ["grown"])
        #expect(try group.memoryUsage() >= 8 << 20)
    }

    @Test func pressureLevelRegistrationIsAcceptedAndQuiet() throws {
        let fixture = try LegacyFixture()
        let level = try fixture.tree.root.pressureLevel(.critical)
        #expect(level.readiness == .readable)
        #expect(try level.wait(timeout: .milliseconds(10)) == false)
    }

    @Test func killLeavesNoChildOrGrandchildAliveAndTheGroupIsRemoved() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.extensions, id: "tree")
        let output = DescriptorPair.socketPair()
        let shell = try spawnShell(
            "(sleep 300 & sleep 300 & echo inner; wait) & sleep 300 & echo outer; wait",
            in: group, output: output.childEnd
        )
        defer { reap(shell) }
        #expect(Set(output.readLines(2)) == ["inner", "outer"])
        let members = try group.processes()
        #expect(members.count == 5)

        let signalled = try group.kill()
        #expect(Set(signalled) == Set(members))
        #expect(try group.waitUntilEmpty(timeout: .seconds(5)))
        #expect(try group.isEmpty())
        #expect(try shell.descriptor.waitForExit() == .killed(signal: SIGKILL, dumpedCore: false))
        #expect(members.allSatisfy(isNotRunning))
        try group.remove()
        #expect(group.directories.allSatisfy { !directoryExists($0) })
    }

    /// A killed process leaves `cgroup.procs` once all its threads have begun to exit, but
    /// its memory is freed by the last thread out; waiting must cover that thread too, or
    /// the pressure policy sees the victim's memory still charged and kills again. Here
    /// the main thread exits first, so a thread that is not the leader frees the memory.
    /// On Linux 6.1 with cgroup v2 the process listing was empty with the memory still
    /// charged in 23 of 30 kills; v1 on this machine's kernel showed no such gap, so here
    /// the test checks the guarantee rather than reproducing the race.
    @Test func aKilledGroupIsEmptyOnlyOnceItsMemoryIsFreed() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.extensions, id: "threads")
        try group.setMemoryMax(160 << 20)
        let script = """
            import ctypes, threading, time
            held = b"x" * (96 << 20)
            threading.Thread(target=lambda: time.sleep(3600), daemon=True).start()
            print("holding", flush=True)
            ctypes.CDLL(None).syscall(60, 0)
            """
        for _ in 0..<3 {
            let output = DescriptorPair.socketPair()
            let holder = try Spawner.spawn(
                SpawnRequest(
                    executable: "/usr/bin/python3", arguments: ["-c", script], cgroup: group.spawnPlacement, standardOutput: output.childEnd
                ))
            defer { reap(holder) }
            #expect(output.readLines(1) == ["holding"])
            #expect(try group.memoryUsage() >= 96 << 20)
            #expect(try group.isEmpty() == false)

            try group.kill()
            #expect(try group.waitUntilEmpty(timeout: .seconds(5)))
            let usage = try group.memoryUsage()
            #expect(usage < 16 << 20, "\(usage >> 20) MiB still charged to a group that looked empty")
        }
    }

    @Test func removingAPopulatedGroupFailsAndWaitingIsBounded() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.hosts, id: "busy")
        let sleeper = try spawnShell("exec sleep 300", in: group)
        defer { reap(sleeper) }
        #expect(try group.waitUntilEmpty(timeout: .milliseconds(50)) == false)
        let error = try #require(throws: CgroupError.self) { try group.remove() }
        #expect(error.description.hasSuffix(": Device or resource busy"))
        try group.destroy(timeout: .seconds(5))
        #expect(!directoryExists(group.directories[0]))
    }

    @Test func staleGroupsOfACrashedDaemonAreKilledAndRemoved() throws {
        let fixture = try LegacyFixture()
        let leftover = try fixture.tree.group(.extensions, id: "leftover")
        let empty = try fixture.tree.group(.apps, id: "empty")
        let orphan = try spawnShell("exec sleep 300", in: leftover)
        defer { reap(orphan) }

        // A new daemon finds the tree as the crashed one left it.
        let restarted = CgroupTree(
            memoryRoot: fixture.sandbox.memoryDirectory, pidsRoot: fixture.sandbox.pidsDirectory, freezerRoot: fixture.sandbox.freezerDirectory)
        let cleaned = try restarted.removeStaleGroups()

        #expect(
            cleaned == [
                StaleGroup(kind: .apps, id: "empty", killedProcesses: [], failure: nil),
                StaleGroup(kind: .extensions, id: "leftover", killedProcesses: [orphan.pid], failure: nil),
            ])
        #expect(try orphan.descriptor.waitForExit() == .killed(signal: SIGKILL, dumpedCore: false))
        #expect((leftover.directories + empty.directories).allSatisfy { !directoryExists($0) })
        #expect(directoryExists("\(fixture.sandbox.memoryDirectory)/extensions"))
        #expect(try restarted.removeStaleGroups().isEmpty)
    }
}
