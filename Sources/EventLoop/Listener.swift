import Glibc

/// A listening UNIX socket on the loop that hands each accepted fd to a callback.
public final class Listener {
    public let path: String
    private let fd: Int32
    private var source: EventSource?

    /// Binds `path` (see ``UnixSocket/listen(path:mode:)``) and accepts on `loop`.
    public init(loop: EventLoop, path: String, mode: mode_t, onAccept: @escaping (Int32) -> Void) throws(SystemError) {
        self.path = path
        fd = try UnixSocket.listen(path: path, mode: mode)
        let listening = fd
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
            Glibc.close(fd)
            throw error
        }
    }

    /// Stops accepting and removes the socket file.
    public func close() {
        guard let source else { return }
        source.cancel()
        self.source = nil
        Glibc.close(fd)
        unlink(path)
    }

    deinit { close() }
}
