import EventLoop
import Glibc
import Testing

/// What a connection sends from the loop's callbacks is held and written once they have
/// all run, one `send` per connection: bytes keep their order, the queue bound holds, a
/// close writes what was held first, and a write that fails closes the connection once.
@Suite struct ConnectionHeldWriteTests {
    /// A connected pair of the given type: the connection's end and the peer's.
    private final class SocketPair {
        let connectionEnd: Int32
        private(set) var peer: Int32

        init(type: __socket_type = SOCK_SEQPACKET) {
            var fds: [Int32] = [-1, -1]
            precondition(socketpair(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0, "socketpair failed")
            connectionEnd = fds[0]
            peer = fds[1]
        }

        /// The next record (or what the stream has), without waiting; nil when nothing waits.
        func receiveNow() -> String? {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let count = recv(peer, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
        }

        func closePeer() {
            close(peer)
            peer = -1
        }

        deinit { if peer >= 0 { close(peer) } }
    }

    private func connection(
        _ loop: EventLoop, _ pair: SocketPair, maxQueuedBytes: Int = 8 << 20, onClose: @escaping (Connection) -> Void = { _ in }
    ) throws -> Connection {
        try Connection(loop: loop, fd: pair.connectionEnd, maxQueuedBytes: maxQueuedBytes, onData: { _, _ in }, onClose: onClose)
    }

    @Test func whatTheCallbacksSendLeavesInOneWriteOnceTheyHaveRun() throws {
        let loop = try EventLoop()
        let pair = SocketPair()
        let connection = try connection(loop, pair)
        var seenDuringTheCallback: String?
        let timer = loop.addTimer(after: .milliseconds(1)) {
            connection.send(Array("a\n".utf8))
            connection.send(Array("b\n".utf8))
            seenDuringTheCallback = pair.receiveNow()
            #expect(connection.queuedByteCount == 4)
            loop.exit()
        }
        _ = try loop.run()
        #expect(seenDuringTheCallback == nil)
        // A record per `send`: both lines in one.
        #expect(pair.receiveNow() == "a\nb\n")
        #expect(pair.receiveNow() == nil)
        _ = timer
    }

    /// A connection that writes at once (an extension's channel) is not held: each send
    /// reaches the peer inside the callback, in order.
    @Test func aConnectionThatWritesAtOnceIsNotHeld() throws {
        let loop = try EventLoop()
        let pair = SocketPair()
        let connection = try connection(loop, pair)
        connection.writesAtOnce = true
        var seen: [String?] = []
        let timer = loop.addTimer(after: .milliseconds(1)) {
            connection.send(Array("a\n".utf8))
            seen.append(pair.receiveNow())
            connection.send(Array("b\n".utf8))
            seen.append(pair.receiveNow())
            #expect(connection.queuedByteCount == 0)
            loop.exit()
        }
        _ = try loop.run()
        #expect(seen == ["a\n", "b\n"])
        #expect(pair.receiveNow() == nil)
        _ = timer
    }

    /// A send `atOnce` (the answer a host waits for) reaches the peer inside the callback,
    /// after what the connection held before it, in one write; later sends are held again.
    @Test func aSendAtOnceWritesWhatWasHeldAndItselfInsideTheCallback() throws {
        let loop = try EventLoop()
        let pair = SocketPair()
        let connection = try connection(loop, pair)
        var seen: [String?] = []
        let timer = loop.addTimer(after: .milliseconds(1)) {
            connection.send(Array("held\n".utf8))
            seen.append(pair.receiveNow())
            connection.send(Array("push\n".utf8), atOnce: true)
            seen.append(pair.receiveNow())
            connection.send(Array("later\n".utf8))
            seen.append(pair.receiveNow())
            loop.exit()
        }
        _ = try loop.run()
        #expect(seen == [nil, "held\npush\n", nil])
        #expect(pair.receiveNow() == "later\n")
        #expect(pair.receiveNow() == nil)
        _ = timer
    }

    @Test func aSendOutsideTheCallbacksIsWrittenAtOnce() throws {
        let loop = try EventLoop()
        let pair = SocketPair()
        let connection = try connection(loop, pair)
        connection.send(Array("now\n".utf8))
        #expect(pair.receiveNow() == "now\n")
    }

    @Test func bytesKeepTheirOrderPerConnectionAndTheConnectionsTheOrderOfTheirFirstSend() throws {
        let loop = try EventLoop()
        let pairs = [SocketPair(), SocketPair()]
        let connections = try pairs.map { try connection(loop, $0) }
        var iteration = 0
        var timer: EventSource?
        timer = loop.addTimer(after: .milliseconds(1)) {
            iteration += 1
            if iteration == 1 {
                connections[1].send(Array("x".utf8))
                connections[0].send(Array("1".utf8))
                connections[1].send(Array("y".utf8))
                connections[0].send(Array("2".utf8))
                timer?.reschedule(at: loop.now + .milliseconds(1))
            } else {
                connections[0].send(Array("3".utf8))
                loop.exit()
            }
        }
        _ = try loop.run()
        #expect(pairs[0].receiveNow() == "12")
        #expect(pairs[0].receiveNow() == "3")
        #expect(pairs[1].receiveNow() == "xy")
    }

    /// A slow reader on a small stream socket: held bytes, bytes refused by the kernel and
    /// bytes sent while those wait all arrive, in order.
    @Test func aSlowPeerGetsEveryByteInOrder() throws {
        let loop = try EventLoop()
        let pair = SocketPair(type: SOCK_STREAM)
        var small: Int32 = 4096
        setsockopt(pair.connectionEnd, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let connection = try connection(loop, pair)
        let chunks = (0..<60).map { index in [UInt8](repeating: UInt8(index), count: 3000 + index * 97) }
        let expected = chunks.flatMap { $0 }
        var sent = 0
        var sender: EventSource?
        sender = loop.addTimer(after: .milliseconds(1)) {
            // Two sends an iteration: one may follow bytes the kernel refused.
            for _ in 0..<2 where sent < chunks.count {
                connection.send(chunks[sent])
                sent += 1
            }
            if sent < chunks.count { sender?.reschedule(at: loop.now + .milliseconds(1)) }
        }
        var received: [UInt8] = []
        let reader = try loop.addIO(fd: pair.peer, events: .readable) { _ in
            var buffer = [UInt8](repeating: 0, count: 1500)
            let count = read(pair.peer, &buffer, buffer.count)
            if count > 0 { received += buffer[..<count] }
            if received.count >= expected.count { loop.exit() }
        }
        let deadline = loop.addTimer(after: .seconds(20)) { loop.exit(code: 1) }
        #expect(try loop.run() == 0)
        #expect(received == expected)
        #expect(connection.isOpen)
        _ = (reader, deadline)
    }

    @Test func aPeerThatStopsReadingIsDroppedAtTheBoundWithinOneCallback() throws {
        let loop = try EventLoop()
        let pair = SocketPair(type: SOCK_STREAM)
        var closes = 0
        let connection = try connection(loop, pair, maxQueuedBytes: 256 << 10) { _ in closes += 1 }
        var openAfterTheBurst: Bool?
        let timer = loop.addTimer(after: .milliseconds(1)) {
            // 32 MiB in one callback: held bytes are written every 64 KiB, and what the
            // kernel refuses counts against the bound at once.
            for _ in 0..<2048 { connection.send([UInt8](repeating: 7, count: 16 << 10)) }
            openAfterTheBurst = connection.isOpen
            loop.exit()
        }
        _ = try loop.run()
        #expect(openAfterTheBurst == false)
        #expect(closes == 1)
        _ = timer
    }

    @Test func aCloseWritesWhatWasHeldFirst() throws {
        let loop = try EventLoop()
        let pairs = [SocketPair(), SocketPair(), SocketPair()]
        let closed = try connection(loop, pairs[0])
        var freed: Connection? = try connection(loop, pairs[1])
        let flushed = try connection(loop, pairs[2])
        let timer = loop.addTimer(after: .milliseconds(1)) {
            closed.send(Array("closed\n".utf8))
            closed.close()
            freed?.send(Array("freed\n".utf8))
            freed = nil
            flushed.send(Array("flushed\n".utf8))
            flushed.closeWhenFlushed()
            loop.exit()
        }
        _ = try loop.run()
        for (pair, line) in zip(pairs, ["closed\n", "freed\n", "flushed\n"]) {
            #expect(pair.receiveNow() == line)
        }
        #expect(!closed.isOpen && !flushed.isOpen)
        // The descriptor closes with its connection.
        #expect(pairs[1].receiveNow() == "", "end of file after the line")
        _ = timer
    }

    @Test func aPeerGoneBeforeTheWriteClosesTheConnectionOnce() throws {
        let loop = try EventLoop()
        let pair = SocketPair()
        var closes = 0
        var connection: Connection?
        connection = try self.connection(loop, pair) { _ in
            closes += 1
            connection = nil  // The owner lets it go from its own close callback.
        }
        let timer = loop.addTimer(after: .milliseconds(1)) {
            connection?.send(Array("lost\n".utf8))
            pair.closePeer()
            connection?.send(Array("lost too\n".utf8))
            loop.exit()
        }
        _ = try loop.run()
        #expect(closes == 1)
        #expect(connection == nil)
        _ = timer
    }

    /// One connection's failed write frees another that holds bytes: that one writes them
    /// as it goes, and the loop does not touch it again.
    @Test func aConnectionFreedByAnotherWhileTheLoopWritesStillWritesItsBytes() throws {
        let loop = try EventLoop()
        let failing = SocketPair()
        let other = SocketPair()
        var second: Connection? = try connection(loop, other)
        let first = try connection(loop, failing) { _ in second = nil }
        let timer = loop.addTimer(after: .milliseconds(1)) {
            first.send(Array("lost\n".utf8))
            second?.send(Array("kept\n".utf8))
            failing.closePeer()
            loop.exit()
        }
        _ = try loop.run()
        #expect(!first.isOpen)
        #expect(second == nil)
        #expect(other.receiveNow() == "kept\n")
        _ = timer
    }
}
