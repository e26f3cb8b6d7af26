import Glibc
import LinuxProcess
import Testing

@testable import Cgroup

/// Backend choice from /proc/self/cgroup and /proc/self/mountinfo texts.
@Suite struct CgroupDetectionTests {
    /// The hybrid layout of these machines: v1 controllers, an empty unified hierarchy.
    static let hybridMounts = """
        31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
        35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
        39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
        41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
        """
    static let hybridMemberships = "8:pids:/\n4:memory:/process_api/abc\n0::/\n"

    private func locate(
        _ mounts: String, _ memberships: String, configuredRoot: String? = nil, ownChild: String? = nil, controllers: [String: String] = [:]
    ) throws -> CgroupDetection.Location {
        try CgroupDetection.locate(
            memberships: CgroupMembership.parse(memberships, path: "cgroup"),
            mounts: CgroupDetection.parseMounts(mounts),
            configuredRoot: configuredRoot,
            ownChild: ownChild,
            controllersOf: { controllers[$0] }
        )
    }

    @Test func hybridWithoutV2MemoryChoosesV1() throws {
        let location = try locate(Self.hybridMounts, Self.hybridMemberships, controllers: ["/sys/fs/cgroup/unified/cgroup.controllers": "hugetlb\n"])
        #expect(location == .legacy(memoryRoot: "/sys/fs/cgroup/memory/process_api/abc", pidsRoot: "/sys/fs/cgroup/pids"))
    }

    @Test func unifiedWithMemoryChoosesV2InTheServiceCgroup() throws {
        let mounts = "30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot"
        let service = "/sys/fs/cgroup/system.slice/extensiond.service"
        let location = try locate(mounts, "0::/system.slice/extensiond.service\n", controllers: ["\(service)/cgroup.controllers": "cpu io memory pids\n"])
        #expect(location == .unified(root: service))
    }

    @Test func unifiedWithoutMemoryAndNoV1IsAClearError() throws {
        let mounts = "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw"
        #expect(throws: CgroupError.self) {
            try locate(mounts, "0::/x\n", controllers: ["/sys/fs/cgroup/x/cgroup.controllers": "cpu\n"])
        }
    }

    @Test func configuredRootReplacesTheOwnCgroup() throws {
        let location = try locate(Self.hybridMounts, Self.hybridMemberships, configuredRoot: "/sys/fs/cgroup/memory/a/extensiond")
        // The pids groups get a child of the daemon's own pids cgroup, named like the root.
        #expect(location == .legacy(memoryRoot: "/sys/fs/cgroup/memory/a/extensiond", pidsRoot: "/sys/fs/cgroup/pids/extensiond"))
    }

    @Test func anUndelegatedDaemonPutsItsTreeInAChildOfItsOwnCgroups() throws {
        let location = try locate(Self.hybridMounts, Self.hybridMemberships, ownChild: "extensiond@run-a")
        #expect(location == .legacy(memoryRoot: "/sys/fs/cgroup/memory/process_api/abc/extensiond@run-a", pidsRoot: "/sys/fs/cgroup/pids/extensiond@run-a"))
        // A configured root is delegated: the child name does not apply.
        let configured = try locate(Self.hybridMounts, Self.hybridMemberships, configuredRoot: "/sys/fs/cgroup/memory/x", ownChild: "extensiond@run-a")
        #expect(configured == .legacy(memoryRoot: "/sys/fs/cgroup/memory/x", pidsRoot: "/sys/fs/cgroup/pids/x"))
    }

    @Test func theV1FreezerHierarchyIsUsedLikeThePidsOne() throws {
        let mounts = Self.hybridMounts + "\n40 31 0:37 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer"
        let memberships = "6:freezer:/f\n" + Self.hybridMemberships
        #expect(
            try locate(mounts, memberships)
                == .legacy(
                    memoryRoot: "/sys/fs/cgroup/memory/process_api/abc", pidsRoot: "/sys/fs/cgroup/pids", freezerRoot: "/sys/fs/cgroup/freezer/f"))
        #expect(
            try locate(mounts, memberships, ownChild: "extensiond@run-a")
                == .legacy(
                    memoryRoot: "/sys/fs/cgroup/memory/process_api/abc/extensiond@run-a", pidsRoot: "/sys/fs/cgroup/pids/extensiond@run-a",
                    freezerRoot: "/sys/fs/cgroup/freezer/f/extensiond@run-a"))
        #expect(
            try locate(mounts, memberships, configuredRoot: "/sys/fs/cgroup/memory/x")
                == .legacy(
                    memoryRoot: "/sys/fs/cgroup/memory/x", pidsRoot: "/sys/fs/cgroup/pids/x", freezerRoot: "/sys/fs/cgroup/freezer/f/x"))
    }

    @Test func childNamesAreOneDirectoryNamePerRuntimeDirectory() {
        #expect(CgroupTree.childName(runtimeDirectory: "/run/extensiond") == "extensiond@run-extensiond")
        #expect(CgroupTree.childName(runtimeDirectory: "/tmp/x-1//run/") == "extensiond@tmp-x\\x2d1-run")
        #expect(CgroupTree.childName(runtimeDirectory: "/tmp/a b/.run") == "extensiond@tmp-a\\x20b-.run")
        #expect(CgroupTree.childName(runtimeDirectory: ".hidden") == "extensiond@\\x2ehidden")
        // Paths that a plain "/" to "-" would merge stay apart.
        #expect(CgroupTree.childName(runtimeDirectory: "/a-b") != CgroupTree.childName(runtimeDirectory: "/a/b"))
    }

    @Test func namespacedMountRootAndEscapedMountPoint() throws {
        let mounts = "35 31 0:32 /docker/c1 /sys/fs/cgroup/mem\\040ory rw - cgroup cgroup rw,memory"
        let location = try locate(mounts, "4:memory:/docker/c1/inner\n")
        #expect(location == .legacy(memoryRoot: "/sys/fs/cgroup/mem ory/inner", pidsRoot: nil))
    }

    @Test func nonCgroupMountsAreIgnored() {
        let mounts = CgroupDetection.parseMounts(Self.hybridMounts + "\ngarbage line\n")
        #expect(mounts.map(\.mountPoint) == ["/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified"])
        #expect(mounts.map(\.isUnified) == [false, false, true])
    }
}

/// A configured root must be a cgroup that exists; nothing is created when it is not.
@Suite struct ConfiguredRootTests {
    @Test func aMissingConfiguredRootIsRefusedWithItsPath() throws {
        let name = "extensiond-no-such-group-\(getpid())"
        let missing = "/sys/fs/cgroup/memory/" + name
        #expect(throws: CgroupError.systemCall("use configured cgroup", path: missing, errno: ENOENT)) {
            try CgroupTree.detect(configuredRoot: missing)
        }
        #expect(access("/sys/fs/cgroup/pids/" + name, F_OK) != 0)
    }
}
