import ExtensiondTestSupport
import Foundation
@testable import Systemd
import Testing

/// The journal's native protocol as the daemon writes it, received by a socket standing
/// in for journald: datagrams, values with newlines, and entries too big for a datagram.
@Suite struct JournalProtocolTests {
    @Test func fieldsAreNameEqualsValueOrLengthPrefixedWhenTheyHoldANewline() {
        var entry = JournalEntry(message: "two\nlines", priority: .warning)
        entry.add("EXTENSIOND_NAME", "widget")
        let expected: [UInt8] = Array("MESSAGE\n".utf8) + [9, 0, 0, 0, 0, 0, 0, 0] + Array("two\nlines\n".utf8)
            + Array("PRIORITY=4\nEXTENSIOND_NAME=widget\n".utf8)
        #expect(JournalDatagram.encode(entry) == expected)
    }

    @Test func anEntryIsOneDatagram() throws {
        let journald = try Journald()
        var entry = JournalEntry(message: "hello", priority: .info)
        entry.add("EXTENSIOND_EVENT", "launch")
        let journal = SystemdJournal(socketPath: journald.path)
        journal.send(entry)
        let received = try #require(journald.receive())
        #expect(received.descriptor == nil)
        #expect(received.bytes == JournalDatagram.encode(entry))
        #expect(journal.failures == 0)
    }

    /// Bigger than a datagram may be: a sealed memfd passed with SCM_RIGHTS.
    @Test func anEntryTooBigForADatagramGoesAsASealedMemfd() throws {
        let journald = try Journald()
        // Past the largest send buffer a socket may have: twice net.core.wmem_max.
        let largestBuffer = 2 * (Int(readTextFile("/proc/sys/net/core/wmem_max")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 4 << 20)
        let entry = JournalEntry(message: String(repeating: "x", count: largestBuffer + 1), priority: .info)
        let journal = SystemdJournal(socketPath: journald.path)
        journal.send(entry)
        let received = try #require(journald.receive())
        #expect(received.bytes.count == 0)
        let memfd = try #require(received.descriptor)
        defer { close(memfd) }
        let seals = fcntl(memfd, 1034 /* F_GET_SEALS */)
        #expect(seals & 0x0F == 0x0F, "sealed against sealing, shrinking, growing and writing")
        var size = stat()
        fstat(memfd, &size)
        let expected = JournalDatagram.encode(entry)
        #expect(Int(size.st_size) == expected.count)
        var contents = [UInt8](repeating: 0, count: expected.count)
        #expect(pread(memfd, &contents, contents.count, 0) == expected.count)
        #expect(contents == expected)
        #expect(journal.failures == 0)
    }

    @Test func anEntryForAJournalThatIsNotRunningIsCountedAsLost() {
        let journal = SystemdJournal(socketPath: "/nonexistent/journal/socket")
        journal.send(JournalEntry(message: "lost", priority: .info))
        #expect(journal.failures == 1)
    }
}

/// A datagram socket in a temporary directory that takes a passed descriptor too.
private final class Journald {
    let directory: TemporaryDirectory
    let path: String
    private let fd: Int32

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.file("socket")
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard withUnixAddress(path, { bind(fd, $0, $1) }) == 0 else { throw TestSupportError("bind \(path)") }
    }

    deinit { close(fd) }

    /// The next datagram and the descriptor it carried, within a second.
    func receive() -> (bytes: [UInt8], descriptor: Int32?)? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 1000) == 1 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 1 << 16)
        // One cmsghdr and one int, aligned: CMSG_SPACE(sizeof(int)).
        var control = [UInt8](repeating: 0, count: MemoryLayout<cmsghdr>.size + 8)
        let (length, controlLength) = bytes.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { control in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vector in
                    var message = msghdr(msg_name: nil, msg_namelen: 0, msg_iov: vector, msg_iovlen: 1,
                                         msg_control: control.baseAddress, msg_controllen: control.count, msg_flags: 0)
                    return (recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC)), message.msg_controllen)
                }
            }
        }
        guard length >= 0 else { return nil }
        var descriptor: Int32?
        let header = control.withUnsafeBytes { $0.load(as: cmsghdr.self) }
        if controlLength > 0 && header.cmsg_level == SOL_SOCKET && header.cmsg_type == Int32(SCM_RIGHTS) {
            descriptor = control.withUnsafeBytes { $0.load(fromByteOffset: MemoryLayout<cmsghdr>.size, as: Int32.self) }
        }
        return (Array(bytes.prefix(length)), descriptor)
    }
}
