import CLinux
import Glibc
import Sockets

/// A listening socket on the loop that hands each accepted fd to a callback: a UNIX
/// socket at a path, or a TCP address.
///
/// Out of file descriptors (`EMFILE`, `ENFILE`), a pending connection would leave the
/// socket readable and the loop spinning on it. The listener keeps one descriptor in
/// reserve for that moment: it frees it, accepts the connection and closes it at once (the
/// peer sees the end of the stream), and takes the reserve again. If even that fails, it
/// stops listening for ``pauseAfterExhaustion``.
public final class Listener {
    /// The socket file of a UNIX listener, removed on ``close()`` unless it was inherited.
    public let path: String?
    private let removesFile: Bool
    /// Connections closed at once because the daemon had no descriptor left for them.
    public private(set) var refusedCount = 0
    private let fd: Int32
    private let loop: EventLoop
    private let onAccept: (Int32) -> Void
    private var source: EventSource?
    private var reserve: FileDescriptor?
    private var resume: EventSource?

    /// How long the listener stops when no descriptor can be had even to refuse a connection.
    public static let pauseAfterExhaustion = Duration.milliseconds(100)

    /// Binds `path` (see ``UnixSocket/listen(path:mode:)``) and accepts on `loop`; or, with
    /// `inherited`, accepts on that socket, already bound to `path` and listening (socket
    /// activation): its file gets `mode` and stays at ``close()``, for the next daemon.
    public convenience init(loop: EventLoop, path: String, mode: mode_t, inherited: Int32? = nil, onAccept: @escaping (Int32) -> Void) throws(SystemError) {
        let listening: Int32
        if let inherited {
            guard fcntl(inherited, F_SETFL, fcntl(inherited, F_GETFL) | O_NONBLOCK) == 0, chmod(path, mode) == 0 else {
                let error = SystemError("inherited socket \(path)")
                Glibc.close(inherited)
                throw error
            }
            listening = inherited
        } else {
            listening = try UnixSocket.listen(path: path, mode: mode)
        }
        try self.init(loop: loop, listening: listening, path: path, removesFile: inherited == nil, onAccept: onAccept)
    }

    /// Binds the TCP `address` (`HOST:PORT`, IPv6 in brackets) and accepts on `loop`.
    public convenience init(loop: EventLoop, tcpAddress address: String, onAccept: @escaping (Int32) -> Void) throws(SystemError) {
        try self.init(loop: loop, listening: TCPSocket.listen(address: address), path: nil, removesFile: false, onAccept: onAccept)
    }

    private init(loop: EventLoop, listening: Int32, path: String?, removesFile: Bool, onAccept: @escaping (Int32) -> Void) throws(SystemError) {
        self.path = path
        self.removesFile = removesFile
        self.loop = loop
        self.onAccept = onAccept
        fd = listening
        reserve = Self.openReserve()
        do throws(SystemError) {
            source = try loop.addIO(fd: listening, events: .readable) { [unowned self] _ in self.acceptPending() }
        } catch {
            FileDescriptor.close(listening)
            throw error
        }
    }

    /// Stops accepting and removes the socket file of a UNIX listener.
    public func close() {
        guard let source else { return }
        source.cancel()
        self.source = nil
        resume = nil
        FileDescriptor.close(fd)
        reserve = nil
        if let path, removesFile { unlink(path) }
    }

    deinit { close() }

    private func acceptPending() {
        while source != nil {
            do throws(SystemError) {
                // Close-on-exec from the start: the spawner's thread runs beside the loop, and
                // a child shares the descriptor table until it has joined its groups (spawn.c).
                let client = try systemCall("accept on fd \(fd)") { ext_accept_cloexec(fd) }
                onAccept(client)
            } catch  where error.errno == ECONNABORTED {
                continue
            } catch  where error.errno == EMFILE || error.errno == ENFILE {
                guard let refused = refuseOne() else { return pause() }
                if !refused { return }
            } catch {
                return
            }
        }
    }

    /// Accepts one connection with the reserved descriptor and closes it at once: true if
    /// one was refused, false if none was pending, nil if no descriptor could be had.
    private func refuseOne() -> Bool? {
        if reserve == nil { reserve = Self.openReserve() }
        guard reserve != nil else { return nil }
        reserve = nil
        defer { reserve = Self.openReserve() }
        do throws(SystemError) {
            FileDescriptor.close(try systemCall("accept on fd \(fd)") { ext_accept_cloexec(fd) })
            refusedCount += 1
            return true
        } catch {
            return error.errno == EAGAIN ? false : nil
        }
    }

    private func pause() {
        source?.setIOEvents([])
        resume = loop.addTimer(after: Self.pauseAfterExhaustion) { [unowned self] in
            self.resume = nil
            self.source?.setIOEvents(.readable)
        }
    }

    private static func openReserve() -> FileDescriptor? {
        try? FileDescriptor("open /dev/null") { open("/dev/null", O_RDONLY | O_CLOEXEC) }
    }
}
