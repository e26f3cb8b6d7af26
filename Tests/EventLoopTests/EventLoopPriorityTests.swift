import EventLoop
import ExtensiondTestSupport
import Glibc
import LinuxProcess
import Sockets
import Testing

/// Priorities within one batch of ready descriptors, and descriptors that close themselves.
@Suite struct EventLoopPriorityTests {
    /// Registered while readable, a descriptor is in epoll's ready list in the order of
    /// registration.
    private func readable() -> DescriptorPair { readableSocketPair() }

    @Test func aHighPrioritySourceOfTheBatchRunsBeforeANormalOneReadyEarlier() throws {
        let loop = try EventLoop()
        let (normal, high) = (readable(), readable())
        var fired: [String] = []
        func consume(_ pair: DescriptorPair, _ name: String) {
            var byte: UInt8 = 0
            _ = Glibc.read(pair.parentEnd, &byte, 1)
            fired.append(name)
        }
        let sources = try [
            loop.addIO(fd: normal.parentEnd, events: .readable) { _ in consume(normal, "normal") },
            loop.addIO(fd: high.parentEnd, events: .readable, priority: .high) { _ in consume(high, "high") },
        ]
        let stop = loop.addTimer(after: .milliseconds(20)) { loop.exit() }
        _ = try loop.run()
        #expect(fired == ["high", "normal"])
        _ = (sources, stop)
    }

    @Test func aChildsExitRunsBeforeASocketReadyEarlier() throws {
        let loop = try EventLoop()
        let socket = readable()
        var fired: [String] = []
        let read = try loop.addIO(fd: socket.parentEnd, events: .readable) { _ in
            fired.append("socket")
            loop.exit()
        }
        let child = try Spawner.spawn(SpawnRequest(executable: "/bin/sh", arguments: ["-c", "exit 0"]))
        var exited = pollfd(fd: child.descriptor.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&exited, 1, 10_000) == 1)
        let exit = try loop.addChildExit(pidfd: child.descriptor.fileDescriptor) { _ in fired.append("exit") }
        _ = try loop.run()
        #expect(fired == ["exit", "socket"])
        _ = (read, exit)
    }

    @Test func aDescriptorClosesItselfUnlessTaken() throws {
        func isOpen(_ fd: Int32) -> Bool { fcntl(fd, F_GETFD) >= 0 }
        var dropped: Int32 = -1
        do {
            let descriptor = FileDescriptor(open("/dev/null", O_RDONLY | O_CLOEXEC))
            dropped = descriptor.rawValue
            #expect(isOpen(dropped))
        }
        #expect(!isOpen(dropped))
        let taken = FileDescriptor(open("/dev/null", O_RDONLY | O_CLOEXEC)).take()
        #expect(isOpen(taken))
        FileDescriptor.close(taken)
        #expect(!isOpen(taken))
    }
}
