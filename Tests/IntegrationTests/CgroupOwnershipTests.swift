import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// Two daemons side by side (issue 8, item 8): each owns its cgroup tree, stale-group
/// cleanup touches only a tree whose owner is gone, and a clean stop leaves no group.
@Suite(.serialized) struct CgroupOwnershipTests {
    static let config = """
        [hosts.panel]
        command = ["/bin/sleep", "1000"]
        """

    /// Moves the shell into the cgroups `$1` (memory) and `$2` (pids), then runs the rest:
    /// two daemons started from one shell.
    static let joinShell = ["/bin/sh", "-c", #"echo $$ > "$1/cgroup.procs" && echo $$ > "$2/cgroup.procs" && shift 2 && exec "$@""#, "join"]

    static func wrapper(into shell: CgroupSandbox) -> [String] {
        joinShell + [shell.memoryDirectory, shell.pidsDirectory ?? shell.memoryDirectory]
    }

    @Test func twoDaemonsStartedFromOneCgroupLeaveEachOthersProcessesAlone() throws {
        let shell = try CgroupSandbox()
        let first = try TestDaemon(config: Self.config, sandboxIsRoot: false)
        let second = try TestDaemon(config: Self.config, sandboxIsRoot: false)
        try first.start(wrapper: Self.wrapper(into: shell))
        let firstHost = try #require(try running(first, "panel"))

        try second.start(wrapper: Self.wrapper(into: shell))
        let secondHost = try #require(try running(second, "panel"))
        #expect(try running(first, "panel") == firstHost, "the first daemon's host kept its pid")
        #expect(isAlive(firstHost) && isAlive(secondHost))
        let secondCleanups = try cleanups(second)
        #expect(secondCleanups.isEmpty, "\(secondCleanups)")
        // Each tree is a child of the shell's cgroup named after its daemon's runtime
        // directory, and the daemon is in its `supervisor` leaf (the owner mark).
        var trees: Set<String> = []
        for (daemon, host) in [(first, firstHost), (second, secondHost)] {
            let pid = try #require(daemon.process?.pid)
            let own = try #require(memoryCgroup(of: pid))
            #expect(own.hasPrefix(shell.memoryDirectory + "/extensiond@") && own.hasSuffix("run/supervisor"), "\(own)")
            let tree = String(own.dropLast("/supervisor".count))
            #expect(processes(in: tree + "/hosts/panel") == [host])
            trees.insert(tree)
        }
        #expect(trees.count == 2)
        #expect(try first.control(.restart(NameSelection(["panel"]))).ok)
        let restarted = try #require(try running(first, "panel"))
        #expect(restarted != firstHost && isAlive(secondHost))

        // The first daemon dies without cleaning up; its successor on the same runtime
        // directory clears its own stale groups and nobody else's.
        first.process?.signal(SIGKILL)
        #expect(first.process?.wait(timeout: 5) != nil)
        let successor = TestDaemon(restarting: first)
        try successor.start(wrapper: Self.wrapper(into: shell))
        let successorCleanups = try cleanups(successor)
        #expect(successorCleanups.map(\.name) == ["panel"], "\(successorCleanups)")
        #expect(try running(second, "panel") == secondHost)
        #expect(isAlive(secondHost))

        #expect(successor.stop() == 0)
        #expect(second.stop() == 0)
        #expect(subdirectories(of: shell.memoryDirectory) == [])
        if let pids = shell.pidsDirectory { #expect(subdirectories(of: pids) == []) }
    }

    @Test func aSupervisorCgroupRunLeavesNoGroupAfterACleanStop() throws {
        let daemon = try TestDaemon(config: Self.config)
        try daemon.start()
        #expect(try running(daemon, "panel") != nil)
        let pidsRoot = try #require(ownPidsDirectory()) + "/" + (daemon.sandbox.memoryDirectory.split(separator: "/").last.map(String.init) ?? "")
        #expect(access(pidsRoot + "/hosts/panel", F_OK) == 0, "the pids groups are in \(pidsRoot)")
        #expect(daemon.stop() == 0)
        #expect(subdirectories(of: daemon.sandbox.memoryDirectory) == [])
        #expect(access(pidsRoot, F_OK) != 0, "\(pidsRoot) is left behind")
    }

    @Test func aSecondDaemonOnAnOwnedSupervisorCgroupIsRefusedAndTouchesNothing() throws {
        let first = try TestDaemon(config: Self.config)
        try first.start()
        let host = try #require(try running(first, "panel"))
        let second = try TestDaemon(config: Self.config, supervisor: "cgroup = \"\(first.sandbox.memoryDirectory)\"")
        #expect(throws: (any Error).self) { try second.start(readyTimeout: 5) }
        #expect(second.process?.wait(timeout: 5) == 1)
        let stderr = second.process?.stderr ?? ""
        #expect(stderr.contains("another extensiond owns this cgroup tree") && stderr.contains("\(first.process?.pid ?? 0)"), "\(stderr)")
        #expect(try running(first, "panel") == host)
        #expect(isAlive(host))
        #expect(try cleanups(first).isEmpty)
    }

    /// The pid of `name` once it runs, or nil after 10 s.
    private func running(_ daemon: TestDaemon, _ name: String) throws -> pid_t? {
        var pid: pid_t?
        _ = try eventually(timeout: 10) {
            let status = try daemon.control(.status(NameSelection([name]))).status?.first
            pid = status?.state == "running" ? status?.pid : nil
            return pid != nil
        }
        return pid
    }

    private func cleanups(_ daemon: TestDaemon) throws -> [EventRecord] {
        try daemon.control(.events(LogRequest(lines: 100))).events?.filter { $0.kind == .cleanup } ?? []
    }

    private func subdirectories(of directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    /// The test process's own v1 pids cgroup directory.
    private func ownPidsDirectory() -> String? {
        cgroupDirectory(of: "self", controller: "pids")
    }

    private func memoryCgroup(of pid: pid_t) -> String? {
        cgroupDirectory(of: "\(pid)", controller: "memory")
    }

    /// `/sys/fs/cgroup/<controller><path>` of a process, from its /proc/PID/cgroup.
    private func cgroupDirectory(of process: String, controller: String) -> String? {
        let text = (try? String(contentsOfFile: "/proc/\(process)/cgroup", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[1].split(separator: ",").contains(Substring(controller)) else { continue }
            return "/sys/fs/cgroup/\(controller)" + (fields[2] == "/" ? "" : String(fields[2]))
        }
        return nil
    }
}
