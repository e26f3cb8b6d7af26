import ControlProtocol
import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// Socket activation as `extensiond.socket` does it: the test binds control.sock and
/// host.sock and passes them as systemd would (`LISTEN_FDS`, `LISTEN_PID`,
/// `LISTEN_FDNAMES`); it holds them across a restart of the daemon, as systemd does.
@Suite struct SocketActivationTests {
    /// A listening UNIX stream socket at `path` (close-on-exec: only the spawn passes it on).
    private final class PassedSocket {
        let fd: Int32
        let path: String

        init(_ path: String) throws {
            self.path = path
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard withUnixAddress(path, { bind(fd, $0, $1) }) == 0, listen(fd, 128) == 0 else {
                close(fd)
                throw TestSupportError("bind \(path): \(String(cString: strerror(errno)))")
            }
        }

        deinit { close(fd) }

        var inode: ino_t? {
            var info = stat()
            return stat(path, &info) == 0 ? info.st_ino : nil
        }
    }

    private func sockets(of daemon: TestDaemon) throws -> (control: PassedSocket, host: PassedSocket) {
        try FileManager.default.createDirectory(atPath: daemon.runtimeDirectory, withIntermediateDirectories: true)
        return (try PassedSocket(daemon.controlSocket), try PassedSocket(daemon.hostSocket))
    }

    /// What systemd's manager does between fork and exec: `LISTEN_PID` is the daemon's pid.
    private func start(_ daemon: TestDaemon, with sockets: (control: PassedSocket, host: PassedSocket)) throws {
        try daemon.start(
            environment: ["LISTEN_FDS": "2", "LISTEN_FDNAMES": "extensiond.socket:extensiond.socket"],
            wrapper: ["/bin/sh", "-c", "LISTEN_PID=$$ exec \"$@\"", "sh"], passing: [sockets.control.fd, sockets.host.fd])
    }

    @Test func theDaemonServesThePassedSocketsAndLeavesThemInPlace() throws {
        let daemon = try TestDaemon(config: DaemonLifecycleTests.twoHosts)
        let sockets = try sockets(of: daemon)
        let inodes = (sockets.control.inode, sockets.host.inode)
        try start(daemon, with: sockets)
        #expect(try daemon.control(.status(NameSelection())).ok)
        let host = try daemon.connectHost()
        try host.send(.list(.init(id: 1)))
        #expect(throws: Never.self, "host.sock answers") { _ = try host.receive(timeout: 5) }
        // Its own sockets, not new ones: the files are the ones bound here, with the
        // daemon's modes.
        #expect(sockets.control.inode == inodes.0 && sockets.host.inode == inodes.1)
        var info = stat()
        #expect(stat(daemon.controlSocket, &info) == 0 && info.st_mode & 0o777 == 0o660)
        #expect(stat(daemon.hostSocket, &info) == 0 && info.st_mode & 0o777 == 0o666)
        #expect(daemon.process?.stderr.contains("socket activation") == false)
        // Stopping leaves the files to the socket's owner.
        #expect(daemon.stop() == 0)
        #expect(sockets.control.inode == inodes.0 && sockets.host.inode == inodes.1)
    }

    /// 50 clients connect while the daemon stops and the next one starts: each waits in the
    /// backlog of the socket that outlives them, and every one is answered.
    @Test func clientsConnectingDuringARestartAreAllServed() throws {
        let first = try TestDaemon(config: DaemonLifecycleTests.twoHosts)
        let sockets = try sockets(of: first)
        try start(first, with: sockets)
        let answers = AnswerCounter()
        let clients = DispatchGroup()
        for index in 0..<50 {
            clients.enter()
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10 * index)) { [first] in
                defer { clients.leave() }
                let reply = (try? first.exchange(ControlCodec.line(ControlRequest.status(NameSelection())), timeout: 30)) ?? []
                answers.record(String(decoding: reply, as: UTF8.self).contains("\"ok\":true"))
            }
        }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(first.stop() == 0)
        let second = TestDaemon(restarting: first)
        try start(second, with: sockets)
        #expect(clients.wait(timeout: .now() + 60) == .success)
        #expect(answers.counts == (served: 50, refused: 0))
    }
}

/// Answers counted from many threads.
private final class AnswerCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var served = 0
    private var refused = 0

    func record(_ ok: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if ok { served += 1 } else { refused += 1 }
    }

    var counts: (served: Int, refused: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (served, refused)
    }
}
