import Cgroup
import ExtensiondTestSupport
import LinuxProcess
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Layout and limits of the v1 backend, in a real memory (and pids) hierarchy.
@Suite struct LegacyLimitsTests {
    @Test func prepareMakesTheLayoutAndGroupsGetTheirDirectories() throws {
        let fixture = try LegacyFixture()
        #expect(fixture.tree.version == .v1)
        for name in ["supervisor", "hosts", "apps", "extensions"] {
            #expect(directoryExists("\(fixture.sandbox.memoryDirectory)/\(name)"))
        }
        let group = try fixture.tree.group(.extensions, id: "com.example.widget")
        #expect(group.directories.first == "\(fixture.sandbox.memoryDirectory)/extensions/com.example.widget")
        #expect(directoryExists(group.directories[0]))
        guard case .joinBeforeExec(let taskFiles) = group.spawnPlacement else {
            Issue.record("v1 placement is \(group.spawnPlacement)")
            return
        }
        #expect(taskFiles.map(\.path) == group.directories.map { "\($0)/tasks" })
        // Walked from each hierarchy's `extensions`, held open since the tree was prepared.
        #expect(taskFiles.map(\.relativePath) == group.directories.map { _ in "com.example.widget/tasks" })
        for file in taskFiles {
            var held = stat()
            var subtree = stat()
            #expect(fstat(file.directory, &held) == 0 && stat(String(file.path.dropLast("/com.example.widget/tasks".count)), &subtree) == 0)
            #expect(held.st_ino == subtree.st_ino && held.st_dev == subtree.st_dev)
        }
    }

    /// A new group's period is the kernel's (100 ms) and is not written again; another is.
    @Test func aNewGroupGetsItsCPUQuotaAndPeriod() throws {
        let sandbox = try CgroupSandbox()
        guard let cpu = sandbox.cpuDirectory else { return }  // no v1 cpu hierarchy here
        let tree = CgroupTree(memoryRoot: sandbox.memoryDirectory, pidsRoot: sandbox.pidsDirectory, cpuRoot: cpu)
        try tree.prepare()
        for (id, period) in [("default-period", 100_000), ("long-period", 250_000)] {
            let group = try tree.group(.extensions, id: id)
            #expect(group.isNew)
            try group.apply(CgroupLimits(cpuQuota: .init(microseconds: 20_000, periodMicroseconds: period)))
            #expect(readTextFile("\(cpu)/extensions/\(id)/cpu.cfs_period_us") == "\(period)\n")
            #expect(readTextFile("\(cpu)/extensions/\(id)/cpu.cfs_quota_us") == "20000\n")
        }
    }

    @Test func aReleasedTreeWalksWholePaths() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.extensions, id: "released")
        fixture.tree.release()
        guard case .joinBeforeExec(let taskFiles) = group.spawnPlacement else {
            Issue.record("v1 placement is \(group.spawnPlacement)")
            return
        }
        #expect(taskFiles == group.directories.map { AnchoredPath("\($0)/tasks") })
    }

    @Test func limitsAreWrittenToTheControlFiles() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.extensions, id: "limits")
        let directory = group.directories[0]
        // v1 has no memory.low: the protection is ignored, the rest is written.
        try group.apply(CgroupLimits(memoryMax: 24 << 20, memoryHigh: 20 << 20, memoryLow: 8 << 20))
        #expect(readTextFile("\(directory)/memory.limit_in_bytes") == "\(24 << 20)\n")
        #expect(readTextFile("\(directory)/memory.soft_limit_in_bytes") == "\(20 << 20)\n")
        #expect(try group.memoryMax() == 24 << 20)
        try group.setMemoryMax(nil)
        #expect(try group.memoryMax() == nil)

        if let pidsDirectory = fixture.sandbox.pidsDirectory {
            try group.setPidsMax(16)
            #expect(readTextFile("\(pidsDirectory)/extensions/limits/pids.max") == "16\n")
            try group.setPidsMax(nil)
            #expect(readTextFile("\(pidsDirectory)/extensions/limits/pids.max") == "max\n")
        }
    }

    /// A launch writes only the limits that are set into a group it just created; a group
    /// that already existed (a relaunch) gets every limit, unset ones removed.
    @Test func aNewGroupGetsItsSetLimitsAndAReusedOneLosesTheUnsetOnes() throws {
        let fixture = try LegacyFixture()
        let first = try fixture.tree.group(.extensions, id: "reused")
        #expect(first.isNew)
        try first.apply(CgroupLimits(memoryMax: 24 << 20, memoryHigh: 20 << 20))
        let directory = first.directories[0]
        #expect(readTextFile("\(directory)/memory.soft_limit_in_bytes") == "\(20 << 20)\n")

        let again = try fixture.tree.group(.extensions, id: "reused")
        #expect(!again.isNew)
        try again.apply(CgroupLimits(memoryMax: 16 << 20))
        #expect(try again.memoryMax() == 16 << 20)
        let soft = UInt64(readTextFile("\(directory)/memory.soft_limit_in_bytes")?.filter(\.isNumber) ?? "") ?? 0
        #expect(soft >= 1 << 62, "the unset memory_high stayed at \(soft)")

        let fresh = try fixture.tree.group(.extensions, id: "fresh")
        #expect(fresh.isNew)
        try fresh.apply(CgroupLimits(memoryMax: 16 << 20))
        #expect(try fresh.memoryMax() == 16 << 20)
        #expect(try fresh.memoryEvents() == MemoryEvents(oomKills: 0, max: 0))
    }

    @Test func backstopLimitsTheWholeTree() throws {
        let fixture = try LegacyFixture()
        try fixture.tree.setMemoryBackstop(300 << 20)
        #expect(readTextFile("\(fixture.sandbox.memoryDirectory)/memory.limit_in_bytes") == "\(300 << 20)\n")
    }

    @Test func pidsMaxStopsForks() throws {
        let fixture = try LegacyFixture()
        try #require(fixture.sandbox.pidsDirectory != nil)
        let group = try fixture.tree.group(.extensions, id: "forks")
        try group.setPidsMax(3)
        // The shell and two sleeps fill the group; the shell's third fork fails and it gives up.
        let shell = try spawnShell("sleep 30 & sleep 30 & sleep 30 & echo unreachable", in: group)
        defer { reap(shell) }
        #expect(try shell.descriptor.waitForExit() != .exited(code: 0))
        #expect(try group.processes().count == 2)
        try group.destroy(timeout: .seconds(5))
    }

    @Test func badIdsAreRefusedWithTheReason() throws {
        let fixture = try LegacyFixture()
        #expect(throws: CgroupError.invalidIdentifier("../escape", reason: "it contains '/'")) {
            try fixture.tree.group(.apps, id: "../escape")
        }
        #expect(throws: CgroupError.invalidIdentifier("", reason: "it is empty")) {
            try fixture.tree.group(.apps, id: "")
        }
        #expect(throws: CgroupError.invalidIdentifier("..", reason: "it is a relative directory name")) {
            try fixture.tree.group(.apps, id: "..")
        }
    }

    @Test func badLimitNamesTheFile() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.extensions, id: "gone")
        try group.remove()
        let error = try #require(throws: CgroupError.self) { try group.setMemoryMax(1 << 20) }
        #expect(error.description == "write \"1048576\" to \(group.directories[0])/memory.limit_in_bytes: No such file or directory")
    }

    @Test func detectionOnThisMachineChoosesV1InTheOwnMemoryCgroup() throws {
        let tree = try CgroupTree.detect()
        let own = try #require(readTextFile("/proc/self/cgroup")?.split(separator: "\n").first { $0.contains(":memory:") })
        let path = own.split(separator: ":", maxSplits: 2)[2]
        #expect(tree.version == .v1)
        #expect(tree.root.directories.first == "/sys/fs/cgroup/memory\(path == "/" ? "" : path)")
    }
}
