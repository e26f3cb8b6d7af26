import CLinux
import Glibc
import Sockets

/// The journal of the running systemd, through its native protocol: one datagram per
/// entry to `/run/systemd/journal/socket`, never waiting; an entry too big for a datagram
/// goes as a sealed memfd passed over the socket, as journald accepts.
public final class SystemdJournal: JournalWriting {
    /// Entries the journal refused (not running, socket buffer full).
    public private(set) var failures = 0
    private let socketPath: String
    /// Opened with the first entry and kept.
    private var fd: Int32 = -1

    public init(socketPath: String = "/run/systemd/journal/socket") {
        self.socketPath = socketPath
    }

    deinit { if fd >= 0 { close(fd) } }

    public func send(_ entry: JournalEntry) {
        if !deliver(JournalDatagram.encode(entry)) { failures += 1 }
    }

    private func deliver(_ datagram: [UInt8]) -> Bool {
        if fd < 0 {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return false }
            // Room for large entries and bursts, as far as net.core.wmem_max allows.
            var size: Int32 = 8 << 20
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let flags = Int32(MSG_NOSIGNAL | MSG_DONTWAIT)
        return (try? UnixSocket.withAddress(socketPath) { address, length in
            if sendto(fd, datagram, datagram.count, flags, address, length) >= 0 { return true }
            guard errno == EMSGSIZE || errno == ENOBUFS else { return false }
            let memfd = ext_sealed_memfd("journal-entry", datagram, datagram.count)
            guard memfd >= 0 else { return false }
            defer { close(memfd) }
            return ext_send_descriptor(fd, address, UInt32(length), memfd, flags) == 0
        }) ?? false
    }
}
