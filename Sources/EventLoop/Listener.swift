import Glibc

/// A listening socket on the loop that hands each accepted fd to a callback: a UNIX
/// socket at a path, or a TCP address.
public final class Listener {
    /// The socket file of a UNIX listener, removed on ``close()``.
    public let path: String?
    private let fd: Int32
    private var source: EventSource?

    /// Binds `path` (see ``UnixSocket/listen(path:mode:)``) and accepts on `loop`.
    public convenience init(loop: EventLoop, path: String, mode: mode_t, onAccept: @escaping (Int32) -> Void) throws(SystemError) {
        try self.init(loop: loop, listening: UnixSocket.listen(path: path, mode: mode), path: path, onAccept: onAccept)
    }

    /// Binds the TCP `address` (`HOST:PORT`, IPv6 in brackets) and accepts on `loop`.
    public convenience init(loop: EventLoop, tcpAddress address: String, onAccept: @escaping (Int32) -> Void) throws(SystemError) {
        try self.init(loop: loop, listening: TCPSocket.listen(address: address), path: nil, onAccept: onAccept)
    }

    private init(loop: EventLoop, listening: Int32, path: String?, onAccept: @escaping (Int32) -> Void) throws(SystemError) {
        self.path = path
        fd = listening
        do throws(SystemError) {
            source = try loop.addIO(fd: listening, events: .readable) { _ in
                while true {
                    let client = accept(listening, nil, nil)
                    if client < 0 { return }
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    onAccept(client)
                }
            }
        } catch {
            Glibc.close(listening)
            throw error
        }
    }

    /// Stops accepting and removes the socket file of a UNIX listener.
    public func close() {
        guard let source else { return }
        source.cancel()
        self.source = nil
        Glibc.close(fd)
        if let path { unlink(path) }
    }

    deinit { close() }
}
