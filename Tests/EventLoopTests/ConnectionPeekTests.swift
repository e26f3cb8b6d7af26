import EventLoop
import ExtensiondTestSupport
import Glibc
import Testing

/// A connection that takes what it read only after the wake-up's writes (an extension's
/// channel) leaves the bytes in the socket while its callbacks run, takes them before the
/// loop waits again, and delivers every byte exactly once, whatever the chunks, nested
/// reads and closes.
@Suite struct ConnectionPeekTests {
    /// A connected stream pair: the connection's end and the peer's.
    private final class StreamPair {
        let connectionEnd: Int32
        private(set) var peer: Int32

        init() {
            var fds: [Int32] = [-1, -1]
            precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0, "socketpair failed")
            connectionEnd = fds[0]
            peer = fds[1]
            var large: Int32 = 1 << 20
            setsockopt(peer, SOL_SOCKET, SO_SNDBUF, &large, socklen_t(MemoryLayout<Int32>.size))
        }

        /// Bytes the connection's end has not taken from the socket yet.
        var unreadAtTheConnection: Int32 {
            var count: Int32 = -1
            _ = ioctl(connectionEnd, UInt(FIONREAD), &count)
            return count
        }

        func write(_ bytes: [UInt8]) {
            let written = bytes.withUnsafeBytes { Glibc.send(peer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            precondition(written == bytes.count, "the peer's write was short")
        }

        func receiveNow() -> String? {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let count = recv(peer, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            return count <= 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
        }

        func closePeer() {
            close(peer)
            peer = -1
        }

        deinit { if peer >= 0 { close(peer) } }
    }

    @Test func theBytesStayInTheSocketWhileTheCallbacksRunAndGoBeforeTheNextWait() throws {
        let loop = try EventLoop()
        let pair = StreamPair()
        var delivered: [String] = []
        var unreadDuringTheCallback: Int32 = -1
        var seenByThePeerDuringTheCallback: String?
        let connection = try Connection(
            loop: loop, fd: pair.connectionEnd,
            onData: { connection, bytes in
                delivered.append(String(decoding: bytes, as: UTF8.self))
                unreadDuringTheCallback = pair.unreadAtTheConnection
                connection.send(Array("answer\n".utf8))
                seenByThePeerDuringTheCallback = pair.receiveNow()
                loop.exit()
            },
            onClose: { _ in })
        connection.takesReadBytesAfterWrites = true
        pair.write(Array("result\n".utf8))
        _ = try loop.run()
        #expect(delivered == ["result\n"])
        #expect(unreadDuringTheCallback == 7)
        #expect(seenByThePeerDuringTheCallback == nil)
        #expect(pair.unreadAtTheConnection == 0)
        #expect(pair.receiveNow() == "answer\n")
    }

    /// Chunks of random sizes, some larger than a wake-up's share, some read again from
    /// inside the callback (`drain()`): the bytes delivered are the bytes written, in order.
    @Test(arguments: [1, 7, 1128])
    func everyByteIsDeliveredOnceWhateverTheChunks(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let loop = try EventLoop()
        let pair = StreamPair()
        let chunks = (0..<120).map { index in
            (0..<Int(random.next() % 3 == 0 ? random.next() % 40_000 + 1 : random.next() % 300 + 1)).map { UInt8(truncatingIfNeeded: index &+ $0) }
        }
        let expected = chunks.flatMap { $0 }
        var delivered: [UInt8] = []
        var drainsLeft = 30
        let connection = try Connection(
            loop: loop, fd: pair.connectionEnd, maxBytesPerWakeup: 16 << 10,
            onData: { connection, bytes in
                delivered.append(contentsOf: bytes)
                if drainsLeft > 0, random.next() % 4 == 0 {
                    drainsLeft -= 1
                    connection.drain(maxReads: 2)
                }
                if delivered.count >= expected.count { loop.exit() }
            },
            onClose: { _ in loop.exit() })
        connection.takesReadBytesAfterWrites = true
        var next = 0
        var timer: EventSource?
        timer = loop.addTimer(after: .milliseconds(1)) {
            if next < chunks.count {
                pair.write(chunks[next])
                next += 1
            }
            timer?.reschedule(at: loop.now + .microseconds(200))
        }
        _ = try loop.run()
        #expect(delivered.count == expected.count)
        let firstDifference = delivered.indices.first { $0 < expected.count && delivered[$0] != expected[$0] }
        #expect(firstDifference == nil, "seed \(seed): first wrong byte at \(firstDifference ?? -1)")
        #expect(pair.unreadAtTheConnection == 0)
        _ = timer
    }

    /// A callback that closes the connection, or frees it, leaves nothing for the loop to
    /// take later; the loop goes on serving the others.
    @Test func aConnectionClosedOrFreedByItsCallbackIsForgotten() throws {
        let loop = try EventLoop()
        let closing = StreamPair(), freed = StreamPair(), other = StreamPair()
        var closedCount = 0
        var freedConnection: Connection?
        var otherDelivered = ""
        let closingConnection = try Connection(
            loop: loop, fd: closing.connectionEnd,
            onData: { connection, _ in connection.close() },
            onClose: { _ in closedCount += 1 })
        freedConnection = try Connection(
            loop: loop, fd: freed.connectionEnd,
            onData: { _, _ in freedConnection = nil },
            onClose: { _ in })
        let otherConnection = try Connection(
            loop: loop, fd: other.connectionEnd,
            onData: { _, bytes in
                otherDelivered += String(decoding: bytes, as: UTF8.self)
                if otherDelivered == "onetwo" { loop.exit() }
            },
            onClose: { _ in })
        for connection in [closingConnection, freedConnection!, otherConnection] { connection.takesReadBytesAfterWrites = true }
        closing.write(Array("bye".utf8))
        freed.write(Array("gone".utf8))
        other.write(Array("one".utf8))
        var timer: EventSource?
        timer = loop.addTimer(after: .milliseconds(5)) { other.write(Array("two".utf8)) }
        _ = try loop.run()
        #expect(closedCount == 1)
        #expect(freedConnection == nil)
        #expect(otherDelivered == "onetwo")
        #expect(other.unreadAtTheConnection == 0)
        _ = timer
    }

    /// The peer's end of file after its last bytes: the bytes, then the close, once.
    @Test func theLastBytesThenTheEndOfFile() throws {
        let loop = try EventLoop()
        let pair = StreamPair()
        var delivered = ""
        var closes = 0
        let connection = try Connection(
            loop: loop, fd: pair.connectionEnd,
            onData: { _, bytes in delivered += String(decoding: bytes, as: UTF8.self) },
            onClose: { _ in
                closes += 1
                loop.exit()
            })
        connection.takesReadBytesAfterWrites = true
        pair.write(Array("last words".utf8))
        pair.closePeer()
        _ = try loop.run()
        #expect(delivered == "last words")
        #expect(closes == 1)
        #expect(!connection.isOpen)
    }
}
