import EventLoop
import Glibc
import LinuxProcess
import Sockets
import Testing

/// Signals through the signalfd (blocked while watched) and children through their pidfds.
@Suite struct EventLoopProcessTests {
    private static func isBlocked(_ signal: Int32) -> Bool {
        var mask = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &mask)
        return sigismember(&mask, signal) == 1
    }

    @Test func aSignalIsBlockedWhileWatchedAndDeliveredToItsSource() throws {
        let loop = try EventLoop()
        var received: [Int32] = []
        var source: EventSource? = try loop.addSignal(SIGUSR2) { signal in
            received.append(signal)
            loop.exit()
        }
        #expect(Self.isBlocked(SIGUSR2))
        // Directed at this thread, which runs the loop and blocks the signal.
        raise(SIGUSR2)
        _ = try loop.run()
        #expect(received == [SIGUSR2])
        #expect(throws: SystemError.self) { try loop.addSignal(SIGUSR2) { _ in } }
        source = nil
        #expect(!Self.isBlocked(SIGUSR2))
        _ = source
    }

    @Test func aChildIsReapedAndReported() throws {
        let loop = try EventLoop()
        let child = try Spawner.spawn(SpawnRequest(executable: "/bin/sh", arguments: ["-c", "exit 3"]))
        var exits: [ChildExit] = []
        let stop = loop.addTimer(after: .seconds(10)) { loop.exit(code: 1) }
        let watch = try loop.addChildExit(pidfd: child.descriptor.fileDescriptor) { exit in
            exits.append(exit)
            // Past the exit: a reaped child's pidfd stays readable and must not fire again.
            stop.reschedule(at: loop.now + .milliseconds(20))
        }
        #expect(try loop.run() == 1)
        #expect(exits.map(\.code) == [Int32(CLD_EXITED)])
        #expect(exits.map(\.status) == [3])
        #expect(exits.first?.exited == true)
        // Reaped: no zombie is left to signal.
        #expect(kill(child.pid, 0) == -1 && errno == ESRCH)
        _ = (watch, stop)
    }

    @Test func aKilledChildReportsItsSignal() throws {
        let loop = try EventLoop()
        let child = try Spawner.spawn(SpawnRequest(executable: "/bin/sleep", arguments: ["10"]))
        var exit: ChildExit?
        let watch = try loop.addChildExit(pidfd: child.descriptor.fileDescriptor) {
            exit = $0
            loop.exit()
        }
        try child.descriptor.send(signal: SIGKILL)
        _ = try loop.run()
        #expect(exit?.code == Int32(CLD_KILLED))
        #expect(exit?.status == SIGKILL)
        #expect(exit?.signalled == true)
        _ = watch
    }
}
