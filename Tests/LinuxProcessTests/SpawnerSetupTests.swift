import Cgroup
import ExtensiondTestSupport
import LinuxProcess
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A spawned child starts exactly as the spawner promises, checked from /proc.
@Suite struct SpawnerSetupTests {
    @Test func childStartsInItsCgroupWithLimitOomScoreFd3AndNothingElse() throws {
        let sandbox = try CgroupSandbox()
        let tree = CgroupTree(memoryRoot: sandbox.memoryDirectory, pidsRoot: sandbox.pidsDirectory)
        try tree.prepare()
        let group = try tree.group(.extensions, id: "setup")
        try group.setMemoryMax(32 << 20)
        let socket = DescriptorPair.socketPair()

        // Give the spawner something to undo: an ignored and a blocked signal.
        let previousPipeHandler = signal(SIGPIPE, SIG_IGN)
        var blocked = sigset_t(), previousMask = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR1)
        pthread_sigmask(SIG_BLOCK, &blocked, &previousMask)
        let spawned = Result { () throws(SpawnError) in
            try Spawner.spawn(
                SpawnRequest(
                    executable: "/bin/sleep", arguments: ["30"],
                    cgroup: group.spawnPlacement, oomScoreAdjustment: 1000, extensionSocket: socket.childEnd
                ))
        }
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        signal(SIGPIPE, previousPipeHandler)
        let child = try spawned.get()
        defer {
            try? child.descriptor.send(signal: SIGKILL)
            _ = try? child.descriptor.waitForExit()
        }
        let pid = child.pid

        let memberships = try CgroupMembership.read(pid: pid)
        let memoryPath = try #require(memberships.first { $0.controllers.contains("memory") }).path
        #expect("/sys/fs/cgroup/memory\(memoryPath)" == "\(sandbox.memoryDirectory)/extensions/setup")
        if let pidsDirectory = sandbox.pidsDirectory {
            let pidsPath = try #require(memberships.first { $0.controllers.contains("pids") }).path
            #expect("/sys/fs/cgroup/pids\(pidsPath)" == "\(pidsDirectory)/extensions/setup")
        }
        #expect(try group.processes() == [pid])
        #expect(try group.memoryMax() == 32 << 20)
        #expect(procFile("\(sandbox.memoryDirectory)/extensions/setup/memory.limit_in_bytes") == "\(32 << 20)\n")

        #expect(procFile("/proc/\(pid)/oom_score_adj") == "1000\n")
        // sleep(1) opens the locale archive as it starts (fd 4 for a moment); a descriptor
        // leaked to it would stay.
        #expect(eventually { directoryEntries("/proc/\(pid)/fd") == ["0", "1", "2", "3"] }, "\(directoryEntries("/proc/\(pid)/fd"))")
        var socketInfo = stat()
        fstat(socket.childEnd, &socketInfo)
        #expect(linkTarget("/proc/\(pid)/fd/3") == "socket:[\(socketInfo.st_ino)]")
        #expect(linkTarget("/proc/\(pid)/fd/0") == "/dev/null")
        #expect(statusField("SigBlk", of: pid) == "0000000000000000")
        #expect(statusField("SigIgn", of: pid) == "0000000000000000")
        // Field 6 of /proc/PID/stat is the session id: its own session.
        let stat = procFile("/proc/\(pid)/stat")
        let afterName = try #require(stat.split(separator: ")").last).split(separator: " ")
        #expect(afterName.count > 3 && afterName[3] == "\(pid)")
    }

    /// With its v1 `tasks` files opened ahead (as the daemon's loop does) the child joins its
    /// groups without opening them and keeps none of those descriptors.
    @Test func childJoinsTasksFilesOpenedAhead() throws {
        let sandbox = try CgroupSandbox()
        let tree = CgroupTree(memoryRoot: sandbox.memoryDirectory, pidsRoot: sandbox.pidsDirectory)
        try tree.prepare()
        let group = try tree.group(.extensions, id: "opened")
        let taskFiles = try OpenTaskFiles(group.spawnPlacement)
        guard case .joinOpened(_, let descriptors) = taskFiles.placement else {
            Issue.record("v1 placement opened: \(taskFiles.placement)")
            return
        }
        #expect(descriptors.count == (sandbox.pidsDirectory == nil ? 1 : 2))
        let child = try Spawner.spawn(SpawnRequest(executable: "/bin/sleep", arguments: ["30"], cgroup: taskFiles.placement))
        defer {
            try? child.descriptor.send(signal: SIGKILL)
            _ = try? child.descriptor.waitForExit()
        }
        let memberships = try CgroupMembership.read(pid: child.pid)
        let memoryPath = try #require(memberships.first { $0.controllers.contains("memory") }).path
        #expect("/sys/fs/cgroup/memory\(memoryPath)" == "\(sandbox.memoryDirectory)/extensions/opened")
        if let pidsDirectory = sandbox.pidsDirectory {
            let pidsPath = try #require(memberships.first { $0.controllers.contains("pids") }).path
            #expect("/sys/fs/cgroup/pids\(pidsPath)" == "\(pidsDirectory)/extensions/opened")
        }
        #expect(eventually { directoryEntries("/proc/\(child.pid)/fd") == ["0", "1", "2"] }, "\(directoryEntries("/proc/\(child.pid)/fd"))")
    }

    /// The child shares the parent's descriptor table only until its first step: with
    /// thousands of descriptors open in the parent it still gets fds 0–3 alone, and the
    /// parent's descriptors are what they were (same files, same numbers).
    @Test func manyOpenDescriptorsStayTheParentsAlone() throws {
        let held = (0..<3000).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        defer { for fd in held { close(fd) } }
        try #require(held.allSatisfy { $0 >= 0 })
        let socket = DescriptorPair.socketPair()
        let output = DescriptorPair.socketPair()
        let child = try Spawner.spawn(
            SpawnRequest(
                executable: "/bin/sh", arguments: ["-c", "echo spoken; exec sleep 30"],
                extensionSocket: socket.childEnd, standardOutput: output.childEnd))
        defer {
            try? child.descriptor.send(signal: SIGKILL)
            _ = try? child.descriptor.waitForExit()
        }
        output.closeChildEnd()
        var line = [UInt8](repeating: 0, count: 16)
        #expect(read(output.parentEnd, &line, line.count) == 7)
        #expect(eventually { directoryEntries("/proc/\(child.pid)/fd") == ["0", "1", "2", "3"] }, "\(directoryEntries("/proc/\(child.pid)/fd"))")
        #expect(held.allSatisfy { linkTarget("/proc/self/fd/\($0)") == "/dev/null" })
        // The child holds the only other end: once it is gone, the pipe ends.
        try child.descriptor.send(signal: SIGKILL)
        _ = try child.descriptor.waitForExit()
        #expect(read(output.parentEnd, &line, line.count) == 0)
    }

    @Test func extensionSocketIsConnectedAtFd3() throws {
        let socket = DescriptorPair.socketPair()
        let child = try Spawner.spawn(
            SpawnRequest(
                executable: "/bin/sh", arguments: ["-c", "echo hello >&3"], extensionSocket: socket.childEnd
            ))
        #expect(socket.readAll() == "hello\n")
        #expect(try child.descriptor.waitForExit() == .exited(code: 0))
    }

    @Test func outputEnvironmentAndDirectoryAreTheRequestedOnes() throws {
        let output = DescriptorPair.socketPair()
        let errors = DescriptorPair.socketPair()
        let child = try Spawner.spawn(
            SpawnRequest(
                executable: "sh",
                arguments: ["-c", "read line; echo \"[$line] $GREETING $HOME\"; pwd; readlink /proc/self/fd/0; echo oops >&2"],
                environment: ["GREETING": "hi", "PATH": "/usr/bin:/bin"],
                workingDirectory: "/tmp",
                standardOutput: output.childEnd,
                standardError: errors.childEnd
            ))
        #expect(output.readAll() == "[] hi \n/tmp\n/dev/null\n")
        #expect(errors.readAll() == "oops\n")
        #expect(try child.descriptor.waitForExit() == .exited(code: 0))
    }

    @Test func runsAsTheRequestedUser() throws {
        let output = DescriptorPair.socketPair()
        let child = try Spawner.spawn(
            SpawnRequest(
                executable: "/usr/bin/id", arguments: ["-u"], user: "nobody", standardOutput: output.childEnd
            ))
        #expect(output.readAll() == "65534\n")
        #expect(try child.descriptor.waitForExit() == .exited(code: 0))
    }

    @Test func numericUserAndGroupNeedNoPasswdEntry() throws {
        let output = DescriptorPair.socketPair()
        let child = try Spawner.spawn(
            SpawnRequest(
                executable: "/bin/sh", arguments: ["-c", "id -u; id -g; id -G"], user: "54321", group: "54322", standardOutput: output.childEnd
            ))
        #expect(output.readAll() == "54321\n54322\n54322\n")
        #expect(try child.descriptor.waitForExit() == .exited(code: 0))
    }

    /// A root child asked for it is the init of a new PID namespace (v1: clone, then it
    /// joins its cgroups itself): its own pid is 1 inside, and when it dies the kernel kills
    /// an orphaned grandchild too (reparented to it, not to the machine's init).
    @Test func aRootChildInItsOwnPIDNamespaceTakesItsOrphansAlongWhenItDies() throws {
        let sandbox = try CgroupSandbox()
        let tree = CgroupTree(memoryRoot: sandbox.memoryDirectory, pidsRoot: sandbox.pidsDirectory)
        try tree.prepare()
        let group = try tree.group(.extensions, id: "namespace")
        let output = DescriptorPair.socketPair()
        let child = try Spawner.spawn(
            SpawnRequest(
                executable: "/bin/sh", arguments: ["-c", "echo $$; (sleep 300 &); sleep 300 & echo forked; wait"],
                cgroup: group.spawnPlacement, standardOutput: output.childEnd, pidNamespaceWhenRoot: true
            ))
        defer {
            try? child.descriptor.send(signal: SIGKILL)
            _ = try? child.descriptor.waitForExit()
        }
        #expect(output.readLines(2) == ["1", "forked"])
        let orphans = ProcessTree.descendants(of: [child.pid])
        #expect(orphans.count == 2, "the orphaned sleep is the main process's child, like the other")
        #expect(try Set(group.processes()) == orphans.union([child.pid]))

        try child.descriptor.send(signal: SIGKILL)
        #expect(try child.descriptor.waitForExit() == .killed(signal: SIGKILL, dumpedCore: false))
        for pid in orphans {
            #expect(ProcessTree.entry(of: pid)?.isRunning != true, "pid \(pid) outlived its namespace's init")
        }
    }

    @Test func descriptorSignalsAndReapsTheChild() throws {
        let child = try Spawner.spawn(SpawnRequest(executable: "/bin/sleep", arguments: ["30"]))
        #expect(try child.descriptor.exitStatusIfExited() == nil)
        try child.descriptor.send(signal: SIGTERM)
        #expect(try child.descriptor.waitForExit() == .killed(signal: SIGTERM, dumpedCore: false))
        #expect(throws: ProcessError.self) { try child.descriptor.send(signal: SIGTERM) }
    }
}
