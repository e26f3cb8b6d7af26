import CSystemd
import Glibc
import Sockets

/// Whether a datagram receiver (systemd's notify socket, journald's socket) can take one
/// more datagram now.
///
/// libsystemd's `sd_notify` and `sd_journal_sendv` send with a blocking `sendmsg`, which
/// waits while the receiver's queue is full: from the event loop that stalls every socket
/// of the daemon (a blocking notify held them for seconds per reload in a reload storm
/// against a busy reader). A datagram socket connected to the receiver polls writable only
/// while the receiver's queue has room, so the daemon asks first and drops the message
/// otherwise, as it did before it used libsystemd. The queue may fill between the question
/// and libsystemd's send; that window is microseconds, not a busy receiver's seconds.
final class ReceiverQueue {
    /// A path, or an abstract name written `@name`.
    private let address: String
    private var fd: Int32 = -1

    init(address: String) {
        self.address = address
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Connects anew every time: a receiver that restarted (journald, or systemd after
    /// `daemon-reexec`) is a new socket at the same address, and a socket connected to the
    /// old one would always poll writable.
    func hasRoom() -> Bool {
        if fd < 0 {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { return false }
        }
        let connect = { (address: UnsafePointer<sockaddr>, length: socklen_t) in Glibc.connect(self.fd, address, length) == 0 }
        let connected =
            address.hasPrefix("@")
            ? (try? UnixSocket.withAbstractAddress(String(address.dropFirst()), connect)) ?? false
            : (try? UnixSocket.withAddress(address, connect)) ?? false
        guard connected else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        return poll(&poller, 1, 0) == 1 && poller.revents & Int16(POLLOUT) != 0
    }
}
