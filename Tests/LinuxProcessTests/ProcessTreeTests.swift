import ExtensiondTestSupport
import Testing

@testable import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

/// `ProcessTree.descendants(of:)`: the family a kill must reach even outside its cgroup.
@Suite struct ProcessTreeTests {
    /// A python process whose second thread starts a child (that child's parent is the
    /// thread, listed in the thread's own `children` file) and whose main thread starts a
    /// shell with a child of its own; it prints the three pids.
    @Test func findsTheChildrenOfEveryThreadAndTheirChildren() throws {
        let output = DescriptorPair.socketPair()
        let script = """
            import subprocess, threading, time
            started = []
            worker = threading.Thread(target=lambda: started.append(subprocess.Popen(["sleep", "60"])))
            worker.start(); worker.join()
            shell = subprocess.Popen(["sh", "-c", "sleep 60 & echo $!; wait"], stdout=subprocess.PIPE, text=True)
            grandchild = shell.stdout.readline().strip()
            print(started[0].pid, shell.pid, grandchild, flush=True)
            time.sleep(60)
            """
        let parent = try Spawner.spawn(
            SpawnRequest(executable: "/usr/bin/python3", arguments: ["-c", script], standardOutput: output.childEnd))
        output.closeChildEnd()
        let line = try #require(output.readLines(1).first)
        let family = Set(line.split(separator: " ").compactMap { pid_t($0) })
        defer {
            for pid in family { kill(pid, SIGKILL) }
            try? parent.descriptor.send(signal: SIGKILL)
            _ = try? parent.descriptor.waitForExit()
        }
        try #require(family.count == 3, "the script's line: \(line)")

        #expect(ProcessTree.descendants(of: [parent.pid]) == family)
        #expect(ProcessTree.children(of: parent.pid).map(Set.init) != family, "the grandchild is no child")
        #expect(ProcessTree.descendants(of: family) == [], "the roots themselves are left out, and sleep has no children")
        #expect(ProcessTree.children(of: 0x7fff_fff0) == [], "a process that is gone has none")
    }
}
