import Cgroup
import EventLoop
import ExtensiondTestSupport
import LinuxProcess
import Processes
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ``EmptyGroupWait`` on a real v1 group with a real process.
@Suite struct EmptyGroupWaitTests {
    /// The pressure responder used to drop a wait still waiting when a victim's group was
    /// empty already (the wait ended within `init` and the episode went on to the next
    /// victim's wait, which the first assignment then replaced): the dropped wait closed
    /// its pidfds before their sources left epoll, and `EPOLL_CTL_DEL` on a closed
    /// descriptor killed the daemon (bench/day, every run). Dropped, it must stop watching.
    @Test func aWaitDroppedWhileWaitingStopsWatchingBeforeItsPidfdsClose() throws {
        let sandbox = try CgroupSandbox()
        let tree = CgroupTree(memoryRoot: sandbox.memoryDirectory, pidsRoot: sandbox.pidsDirectory)
        try tree.prepare()
        let group = try tree.group(.extensions, id: "sleeper")
        let sleeper = try Spawner.spawn(SpawnRequest(executable: "/bin/sleep", arguments: ["60"], cgroup: group.spawnPlacement))
        defer {
            try? sleeper.descriptor.send(signal: SIGKILL)
            _ = try? sleeper.descriptor.waitForExit()
        }
        let loop = try EventLoop()
        var ended = false
        var wait: EmptyGroupWait? = EmptyGroupWait(loop: loop, group: group, until: .current() + .seconds(60)) { _, _ in ended = true }
        #expect(wait?.isOver == false, "the sleeper keeps its group populated")
        wait = nil
        // Its exit would make the dropped wait's pidfd readable, were it still watched.
        try sleeper.descriptor.send(signal: SIGKILL)
        let stop = loop.addTimer(after: .milliseconds(100)) { loop.exit() }
        _ = try loop.run()
        _ = stop
        #expect(!ended, "a dropped wait does not answer")
    }
}
