import ExtensiondTestSupport
import Glibc

/// The socket the relay extension connects to, to hand over its fd 3 (`SCM_RIGHTS`).
final class UnixListener {
    private let fd: Int32
    private let path: String

    init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let bound = withUnixAddress(path) { bind(fd, $0, $1) }
        // The relay runs under its app's uid: connecting needs write permission on the socket.
        guard bound == 0, chmod(path, 0o777) == 0, listen(fd, 16) == 0 else {
            throw FuzzFailure("listen on \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next relay's connection (closing it lets the relay exit) and the extension
    /// socket it passed; nil if none came within `timeout` ms.
    func acceptRelay(timeout: Int32) -> (Peer, Int32)? {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, timeout) == 1 else { return nil }
        let connection = accept(fd, nil, nil)
        guard connection >= 0 else { return nil }
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        var byte: UInt8 = 0
        // cmsghdr (16 bytes on 64-bit Linux) followed by one int.
        var control = [UInt8](repeating: 0, count: 64)
        let received: Int = withUnsafeMutablePointer(to: &byte) { bytePointer in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: UnsafeMutableRawPointer(bytePointer), iov_len: 1)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    var ready = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                    guard poll(&ready, 1, 5000) == 1 else { return -1 }
                    return recvmsg(connection, &message, Int32(MSG_CMSG_CLOEXEC))
                }
            }
        }
        let level = control.withUnsafeBytes { $0.load(fromByteOffset: 8, as: Int32.self) }
        let type = control.withUnsafeBytes { $0.load(fromByteOffset: 12, as: Int32.self) }
        guard received == 1, level == SOL_SOCKET, type == Int32(SCM_RIGHTS) else {
            close(connection)
            return nil
        }
        let passed = control.withUnsafeBytes { $0.load(fromByteOffset: 16, as: Int32.self) }
        return (Peer(fd: connection), passed)
    }
}
