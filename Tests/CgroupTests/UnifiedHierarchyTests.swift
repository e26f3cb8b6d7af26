import Cgroup
import ExtensiondTestSupport
import LinuxProcess
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The v2 backend's process handling in the real unified hierarchy of these
/// hybrid machines (`/sys/fs/cgroup/unified`). It has no memory controller, so
/// limits are not tested here, but clone3 into a cgroup, `cgroup.kill`,
/// `cgroup.events` and per-cgroup PSI triggers are real.
@Suite struct UnifiedHierarchyTests {
    /// A scratch cgroup below the unified root; killed and removed at the end.
    final class Scratch {
        let root: String
        let tree: CgroupTree

        init() throws {
            root = "/sys/fs/cgroup/unified/extensiond-test-\(getpid())-\(UInt64.random(in: 0 ... .max))"
            try #require(mkdir(root, 0o755) == 0)
            try #require(mkdir("\(root)/supervised", 0o755) == 0)
            try #require(mkdir("\(root)/supervised/extensions", 0o755) == 0)
            tree = CgroupTree(unifiedRoot: root)
        }

        deinit {
            for directory in ["\(root)/supervised/extensions/e", "\(root)/supervised/extensions", "\(root)/supervised", root] {
                if let text = readTextFile("\(directory)/cgroup.procs"), !text.isEmpty {
                    let fd = open("\(directory)/cgroup.kill", O_WRONLY | O_CLOEXEC)
                    if fd >= 0 { _ = write(fd, "1", 1); close(fd) }
                }
            }
            for directory in ["\(root)/supervised/extensions/e", "\(root)/supervised/extensions", "\(root)/supervised", root] {
                for _ in 0..<1000 where rmdir(directory) != 0 && errno == EBUSY {
                    var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                    nanosleep(&pause, nil)
                }
            }
        }
    }

    @Test func childIsClonedIntoItsCgroupAndCgroupKillEmptiesIt() throws {
        let scratch = try Scratch()
        let group = try scratch.tree.group(.extensions, id: "e")
        let population = try #require(try group.populationWatch())
        let output = DescriptorPair.socketPair()
        let shell = try spawnShell("sleep 300 & echo started; wait", in: group, output: output.childEnd)
        defer { reap(shell) }
        #expect(output.readLines(1) == ["started"])

        let memberships = try CgroupMembership.read(pid: shell.pid)
        let unified = memberships.first { $0.isUnified }
        let unifiedPath = try #require(unified).path
        #expect("/sys/fs/cgroup/unified\(unifiedPath)" == "\(scratch.root)/supervised/extensions/e")
        #expect(try group.processes().count == 2)
        #expect(readTextFile("\(scratch.root)/supervised/extensions/e/cgroup.events")?.hasPrefix("populated 1") == true)
        try population.acknowledge()

        #expect(try group.kill().count == 2)
        #expect(try group.waitUntilEmpty(timeout: .seconds(5)))
        #expect(try population.wait(timeout: .seconds(5)))
        #expect(readTextFile("\(scratch.root)/supervised/extensions/e/cgroup.events")?.hasPrefix("populated 0") == true)
        #expect(try shell.descriptor.waitForExit() == .killed(signal: SIGKILL, dumpedCore: false))
        try group.remove()
        #expect(!directoryExists("\(scratch.root)/supervised/extensions/e"))
    }

    /// v2 with a PID namespace: clone3 takes CLONE_INTO_CGROUP and CLONE_NEWPID together,
    /// and the namespace dies with its init.
    @Test func aRootChildIsClonedIntoItsCgroupAndItsOwnPIDNamespace() throws {
        let scratch = try Scratch()
        let group = try scratch.tree.group(.extensions, id: "e")
        let output = DescriptorPair.socketPair()
        let shell = try Spawner.spawn(
            SpawnRequest(
                executable: "/bin/sh", arguments: ["-c", "echo $$; (sleep 300 &); echo forked; exec sleep 300"],
                cgroup: group.spawnPlacement, standardOutput: output.childEnd, pidNamespaceWhenRoot: true
            ))
        defer { reap(shell) }
        #expect(output.readLines(2) == ["1", "forked"])
        let members = try group.processes()
        #expect(members.count == 2 && members.contains(shell.pid))
        try shell.descriptor.send(signal: SIGKILL)
        #expect(try shell.descriptor.waitForExit() == .killed(signal: SIGKILL, dumpedCore: false))
        #expect(try group.waitUntilEmpty(timeout: .seconds(5)))
        for pid in members { #expect(isNotRunning(pid)) }
    }

    @Test func perCgroupPressureTriggerIsInstalled() throws {
        let scratch = try Scratch()
        let group = try scratch.tree.group(.extensions, id: "e")
        let trigger = try group.pressureTrigger(PressureTriggerRule(.some, stall: .milliseconds(100), window: .seconds(2)))
        #expect(trigger.readiness == .priority)
        #expect(try trigger.acknowledge() == 0)
    }

    @Test func cloneIntoAMissingCgroupIsAClearError() throws {
        let scratch = try Scratch()
        let missing = "\(scratch.root)/supervised/extensions/none"
        #expect(throws: SpawnError.self) {
            try Spawner.spawn(SpawnRequest(executable: "/bin/true", cgroup: .cloneInto(directory: missing)))
        }
    }
}
