import Foundation

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
public final class NotifySocket: @unchecked Sendable {
    public let path: String
    private let fd: Int32

    public init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let bound = withUnixAddress(path) { bind(fd, $0, $1) }
        guard bound == 0 else { throw TestSupportError("bind \(path): \(String(cString: strerror(errno)))") }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next datagram, or nil after `timeout` seconds.
    public func receive(timeout: Double) -> String? {
        var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&poll, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Reads datagrams until one contains `field` (e.g. `READY=1`); returns it.
    public func wait(for field: String, timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let message = receive(timeout: deadline.timeIntervalSinceNow), message.split(separator: "\n").contains(where: { $0 == field }) {
                return message
            }
        }
        return nil
    }
}
