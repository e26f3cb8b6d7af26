import Cgroup
import ExtensiondTestSupport
import LinuxProcess
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The v1 freezer (this machine's): a frozen group's tasks use no CPU, thaw on demand,
/// and die when killed frozen. (v2's `cgroup.freeze` runs in the VM tests.)
@Suite struct FreezerTests {
    /// utime + stime of `pid` in clock ticks, from /proc/PID/stat.
    private func cpuTicks(_ pid: pid_t) -> UInt64? {
        guard let stat = readTextFile("/proc/\(pid)/stat"), let tail = stat.split(separator: ")").last else { return nil }
        let fields = tail.split(separator: " ")
        // After ")": state is field 3 of the line, utime 14 and stime 15.
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return user + system
    }

    /// Reads the state until it is no longer `freezing` (bounded: the kernel retries at each read).
    private func settledState(_ group: ControlGroup) throws -> FreezerState {
        for _ in 0..<1000 {
            let state = try group.freezerState()
            if state != .freezing { return state }
            usleep(1000)
        }
        return try group.freezerState()
    }

    /// A shell spinning on the CPU in `group`.
    private func spinner(in group: ControlGroup) throws -> SpawnedProcess {
        try spawnShell("while :; do :; done", in: group)
    }

    private func waitForTicks(_ pid: pid_t, above start: UInt64) -> Bool {
        for _ in 0..<5000 {
            if let now = cpuTicks(pid), now > start { return true }
            usleep(1000)
        }
        return false
    }

    @Test func aFrozenGroupStopsUsingCPUAndRunsAgainWhenThawed() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.extensions, id: "spin")
        try #require(group.canFreeze, "no v1 freezer hierarchy")
        #expect(try group.freezerState() == .thawed)
        let spin = try spinner(in: group)
        defer { reap(spin) }
        #expect(waitForTicks(spin.pid, above: cpuTicks(spin.pid) ?? 0), "the spinner runs")

        try group.freeze()
        #expect(try settledState(group) == .frozen)
        let frozenAt = try #require(cpuTicks(spin.pid))
        usleep(300_000)
        #expect(cpuTicks(spin.pid) == frozenAt, "a frozen task is never scheduled")

        try group.thaw()
        #expect(try group.freezerState() == .thawed)
        #expect(waitForTicks(spin.pid, above: frozenAt), "thawed, it runs again")
    }

    @Test func killingAFrozenGroupEndsItsProcesses() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.extensions, id: "frozen")
        try #require(group.canFreeze, "no v1 freezer hierarchy")
        let spin = try spinner(in: group)
        defer { reap(spin) }
        try group.freeze()
        #expect(try settledState(group) == .frozen)

        #expect(try group.kill() == [spin.pid])
        #expect(try spin.descriptor.waitForExit() == .killed(signal: SIGKILL, dumpedCore: false))
        #expect(try group.waitUntilEmpty(timeout: .seconds(10)))
        #expect(try group.freezerState() == .thawed)
        try group.remove()
        for directory in group.directories { #expect(!directoryExists(directory)) }
    }

    @Test func freezingWithoutAFreezerHierarchyIsAClearError() throws {
        let sandbox = try CgroupSandbox()
        let tree = CgroupTree(memoryRoot: sandbox.memoryDirectory, pidsRoot: sandbox.pidsDirectory)
        try tree.prepare()
        let group = try tree.group(.extensions, id: "plain")
        #expect(!group.canFreeze)
        #expect(throws: CgroupError.unsupported("freezing", version: .v1, alternative: "mount the freezer controller (no v1 freezer hierarchy found)")) {
            try group.freeze()
        }
    }

    /// v1 has no proactive reclaim: the pressure episode skips the step there (`canReclaim`).
    @Test func reclaimingOnV1IsAClearError() throws {
        let fixture = try LegacyFixture()
        let group = try fixture.tree.group(.extensions, id: "reclaim")
        #expect(!group.canReclaim)
        #expect(
            throws: CgroupError.unsupported(
                "memory.reclaim", version: .v1,
                alternative: "nothing: v1 has no proactive reclaim; the pressure episode kills without it")
        ) {
            try group.reclaim(1 << 20)
        }
    }
}
