import EventLoop
import ExtensiondTestSupport
import Foundation
import Sockets
import Testing

@testable import Systemd

/// `sd_notify` as the daemon wraps it, against a socket standing in for systemd's
/// `$NOTIFY_SOCKET` (libsystemd reads the variable, so these tests set it one at a time).
@Suite(.serialized) struct SystemdNotifierTests {
    /// Runs `body` with `name` set to `value` in this process's environment.
    private func with<T>(_ variables: [String: String], _ body: () throws -> T) rethrows -> T {
        let saved = variables.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
        for (name, value) in variables { setenv(name, value, 1) }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        return try body()
    }

    @Test func readyGoesToASocketPath() throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(path: directory.file("notify"))
        with(["NOTIFY_SOCKET": socket.path]) { SystemdNotifier().ready(status: "serving") }
        #expect(socket.wait(for: "READY=1", timeout: 1) == "READY=1\nSTATUS=serving")
    }

    @Test func anAbstractAddressIsWrittenWithAnAt() throws {
        let name = "extensiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        #expect(try UnixSocket.withAbstractAddress(name) { bind(fd, $0, $1) } == 0)
        with(["NOTIFY_SOCKET": "@" + name]) { SystemdNotifier().status("busy") }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&poller, 1, 1000) == 1)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &buffer, buffer.count, 0)
        #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self) == "STATUS=busy")
    }

    /// `Type=notify-reload` (systemd 253) takes a reload only with the time it began.
    @Test func reloadingCarriesTheMonotonicTimeItBegan() throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(path: directory.file("notify"))
        let before = MonotonicInstant.current()
        with(["NOTIFY_SOCKET": socket.path]) { SystemdNotifier().reloading() }
        let message = try #require(socket.wait(for: "RELOADING=1", timeout: 1))
        let lines = message.split(separator: "\n")
        let time = try #require(lines.first { $0.hasPrefix("MONOTONIC_USEC=") }.flatMap { UInt64($0.dropFirst("MONOTONIC_USEC=".count)) })
        #expect(time >= before.microseconds && time <= MonotonicInstant.current().microseconds)
    }

    @Test func withoutASocketNothingIsSentAndNothingFails() {
        with(["NOTIFY_SOCKET": ""]) { SystemdNotifier().status("nobody listens") }
        with(["NOTIFY_SOCKET": "/nonexistent/notify"]) { SystemdNotifier().status("nobody listens") }
    }

    /// libsystemd's `sendmsg` waits while systemd's queue is full; from the loop the
    /// daemon drops the notification instead, and it does not arrive later either.
    @Test func aFullQueueDropsTheNotificationWithoutWaiting() throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(path: directory.file("notify"))
        let filler = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(filler) }
        #expect(try UnixSocket.withAddress(socket.path) { connect(filler, $0, $1) } == 0)
        var queued = 0
        while send(filler, "filler", 6, 0) == 6 { queued += 1 }
        #expect(errno == EAGAIN && queued > 0)

        let sent = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            with(["NOTIFY_SOCKET": socket.path]) { SystemdNotifier().status("dropped") }
            sent.signal()
        }
        thread.start()
        #expect(sent.wait(timeout: .now() + 5) == .success, "the notification waited for room")
        var received: [String] = []
        while let message = socket.receive(timeout: 0.2) { received.append(message) }
        #expect(received.count == queued && !received.contains("STATUS=dropped"))
    }

    @Test func theWatchdogPingsFromTheLoopWhenSystemdAsksForIt() throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(path: directory.file("notify"))
        let loop = try EventLoop()
        let watchdog = try #require(
            with(["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "100000", "WATCHDOG_PID": "\(getpid())"]) {
                Watchdog(loop: loop)
            })
        #expect(watchdog.interval == .milliseconds(100))
        let stop = try loop.addTimer(after: .milliseconds(300)) { loop.exit() }
        try with(["NOTIFY_SOCKET": socket.path]) { _ = try loop.run() }
        stop.cancel()
        var pings = 0
        while let message = socket.receive(timeout: 0), message == "WATCHDOG=1" { pings += 1 }
        #expect(pings >= 3 && pings <= 6, "\(pings) pings in 300 ms at 50-75 ms apart")
    }

    @Test func theWatchdogOfAnotherProcessIsNotOurs() throws {
        let loop = try EventLoop()
        with(["WATCHDOG_USEC": "100000", "WATCHDOG_PID": "1"]) { #expect(Watchdog(loop: loop) == nil) }
        with(["WATCHDOG_USEC": "0"]) { #expect(Watchdog(loop: loop) == nil) }
    }
}
