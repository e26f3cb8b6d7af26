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

        /// Whether a connection waits in the backlog: a listening socket polls readable
        /// until its connections are accepted.
        var hasWaitingClient: Bool {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&ready, 1, 0) == 1
        }
    }

    /// A client the daemon has accepted (the backlog is empty again) that has sent nothing.
    private func acceptedClient(of socket: PassedSocket) throws -> Int32 {
        let fd = try connectUnixStream(to: socket.path)
        guard eventually({ !socket.hasWaitingClient }) else {
            close(fd)
            throw TestSupportError("the daemon did not accept a client on \(socket.path)")
        }
        return fd
    }

    /// Sends `request`'s line on `fd` and reads until the daemon closes the connection.
    private func ask(_ fd: Int32, _ request: ControlRequest) -> String {
        let line = ControlCodec.line(request)
        _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return read(untilClosed: fd)
    }

    private func read(untilClosed fd: Int32) -> String {
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&ready, 1, 10_000) == 1 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            reply += chunk[..<count]
        }
        return String(decoding: reply, as: UTF8.self)
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

    /// A daemon started on sockets bound here, as `extensiond.socket` starts it.
    private func activated(config: String = "") throws -> (TestDaemon, (control: PassedSocket, host: PassedSocket)) {
        let daemon = try TestDaemon(config: config)
        let sockets = try sockets(of: daemon)
        try start(daemon, with: sockets)
        return (daemon, sockets)
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
        let (first, sockets) = try activated(config: DaemonLifecycleTests.twoHosts)
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

    /// A client accepted just before SIGTERM, whose request comes after it, is answered
    /// while the daemon stops (nothing runs here: the stop waits for it); a client that
    /// connects after the SIGTERM is left in the backlog for the next daemon.
    @Test func aClientAcceptedJustBeforeTheStopIsAnsweredAndALaterOneWaits() throws {
        let (daemon, sockets) = try activated()
        let early = try acceptedClient(of: sockets.control)
        defer { close(early) }
        daemon.process?.signal(SIGTERM)
        #expect(daemon.notify.wait(for: "STOPPING=1", timeout: 5) != nil)
        let late = try connectUnixStream(to: sockets.control.path)
        defer { close(late) }
        #expect(ask(early, .status(NameSelection())).contains("\"ok\":true"))
        #expect(daemon.process?.wait(timeout: 10) == 0)
        #expect(sockets.control.hasWaitingClient)
        let next = TestDaemon(restarting: daemon)
        try start(next, with: sockets)
        #expect(ask(late, .status(NameSelection())).contains("\"ok\":true"))
    }

    /// While it stops, the daemon answers reading commands but runs nothing that would
    /// start or change a process.
    @Test func aRequestToStartSomethingWhileStoppingIsRefusedNamingWhy() throws {
        let (daemon, sockets) = try activated(config: DaemonLifecycleTests.twoHosts)
        let starter = try acceptedClient(of: sockets.control)
        defer { close(starter) }
        let reader = try acceptedClient(of: sockets.control)
        defer { close(reader) }
        daemon.process?.signal(SIGTERM)
        #expect(daemon.notify.wait(for: "STOPPING=1", timeout: 5) != nil)
        let refusal = ask(starter, .start(NameSelection(["panel"])))
        #expect(refusal.contains("\"ok\":false") && refusal.contains("extensiond is stopping: start was not run"))
        let events = try ControlCodec.decode(ControlResponse.self, from: Array(ask(reader, .events(LogRequest(lines: 200))).utf8.dropLast()))
        #expect(events.ok)
        #expect(events.events?.contains { $0.kind == .launch && $0.name == "panel" } == false)
        #expect(daemon.process?.wait(timeout: 10) == 0)
    }

    /// A SIGHUP while the daemon stops starts nothing: the config's new autostart host is
    /// never launched.
    @Test func aReloadWhileStoppingStartsNothing() throws {
        let slowToStop = """
            [hosts.slow]
            command = ["/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.1; done"]
            stop_timeout = "2s"
            """
        let (daemon, _) = try activated(config: slowToStop)
        daemon.process?.signal(SIGTERM)
        #expect(daemon.notify.wait(for: "STOPPING=1", timeout: 5) != nil)
        try daemon.writeConfig(slowToStop + "\n\n[hosts.late]\ncommand = [\"/bin/sleep\", \"1000\"]\n")
        daemon.process?.signal(SIGHUP)
        #expect(daemon.process?.wait(timeout: 10) == 0)
        let log = daemon.process?.stderr ?? ""
        #expect(log.contains("slow: launched") && !log.contains("late: launched"), "\(log)")
    }

    /// A client that never sends its request holds the stop for at most a second.
    @Test func aSilentAcceptedClientHoldsTheStopForAtMostASecond() throws {
        let (daemon, sockets) = try activated()
        let silent = try acceptedClient(of: sockets.control)
        defer { close(silent) }
        let signalled = Date()
        daemon.process?.signal(SIGTERM)
        #expect(daemon.process?.wait(timeout: 10) == 0)
        let held = Date().timeIntervalSince(signalled)
        #expect(held >= 0.9 && held < 5, "the stop took \(held) s")
        #expect(read(untilClosed: silent).isEmpty)
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
