import EventLoop
import Glibc
import Testing

/// An answer a peer waits for (`send(_:atOnce:)`), taken whole by the kernel inside the
/// callbacks, makes the loop yield its CPU to that peer, once per wake-up; nothing else does.
/// These count the loop's real `sched_yield` calls: whether the kernel then runs the peer
/// first depends on where it put it, which only a timing shows (bench/pull, "The CPU handed
/// to the answered host").
@Suite struct AnsweredPeerYieldTests {
    private final class Pair {
        let connection: Connection
        let peer: Int32

        init(_ loop: EventLoop) throws {
            var fds: [Int32] = [-1, -1]
            precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0, "socketpair failed")
            peer = fds[1]
            connection = try Connection(loop: loop, fd: fds[0], onData: { _, _ in }, onClose: { _ in })
        }

        deinit { close(peer) }
    }

    /// Runs `callbacks` in turn, each in a wake-up of its own, then stops the loop.
    private func run(_ loop: EventLoop, _ callbacks: [() -> Void]) throws {
        var timers: [EventSource] = []
        for (index, callback) in callbacks.enumerated() {
            timers.append(loop.addTimer(after: .milliseconds(5 * (index + 1))) { callback() })
        }
        timers.append(loop.addTimer(after: .milliseconds(5 * (callbacks.count + 1))) { loop.exit() })
        _ = try loop.run()
    }

    @Test func anAnswerYieldsOncePerWakeUp() throws {
        let loop = try EventLoop()
        let first = try Pair(loop)
        let second = try Pair(loop)
        var yieldsAfterEach: [Int] = []
        try run(
            loop,
            [
                {
                    first.connection.send(Array("one\n".utf8), atOnce: true)
                    yieldsAfterEach.append(loop.yieldsToAnsweredPeers)
                    second.connection.send(Array("two\n".utf8), atOnce: true)
                    yieldsAfterEach.append(loop.yieldsToAnsweredPeers)
                },
                {
                    first.connection.send(Array("three\n".utf8), atOnce: true)
                    yieldsAfterEach.append(loop.yieldsToAnsweredPeers)
                },
            ])
        #expect(yieldsAfterEach == [1, 1, 2])
    }

    /// A held answer, an extension's `update` (`writesAtOnce`) and a send outside the
    /// callbacks leave the CPU alone.
    @Test func otherWritesDoNotYield() throws {
        let loop = try EventLoop()
        let host = try Pair(loop)
        let extensionChannel = try Pair(loop)
        extensionChannel.connection.writesAtOnce = true
        host.connection.send(Array("before the loop runs\n".utf8), atOnce: true)
        try run(
            loop,
            [
                { host.connection.send(Array("held\n".utf8)) },
                { extensionChannel.connection.send(Array("update\n".utf8)) },
            ])
        #expect(loop.yieldsToAnsweredPeers == 0)
    }

    /// An answer behind bytes the peer has not read yet waits for the socket: the peer has
    /// nothing new to read, so the loop keeps its CPU.
    @Test func anAnswerTheKernelCannotTakeDoesNotYield() throws {
        let loop = try EventLoop()
        let host = try Pair(loop)
        host.connection.send([UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20))
        #expect(host.connection.queuedByteCount > 0)
        try run(loop, [{ host.connection.send(Array("answer\n".utf8), atOnce: true) }])
        #expect(loop.yieldsToAnsweredPeers == 0)
    }
}
