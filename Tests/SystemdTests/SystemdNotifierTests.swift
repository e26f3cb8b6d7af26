@testable import EventLoop
import ExtensiondTestSupport
import Glibc
import Sockets
import Testing

/// `sd_notify`'s protocol without libsystemd: a datagram to a socket path or an abstract
/// address; and the helper command that sets the unit's properties.
@Suite struct SystemdNotifierTests {
    @Test func readyGoesToASocketPath() throws {
        let directory = try TemporaryDirectory()
        let socket = try NotifySocket(path: directory.file("notify"))
        SystemdNotifier(socket: socket.path).ready(status: "serving")
        #expect(socket.receive(timeout: 1) == "READY=1\nSTATUS=serving")
    }

    @Test func anAbstractAddressIsWrittenWithAnAt() throws {
        let name = "extensiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        #expect(try UnixSocket.withAbstractAddress(name) { bind(fd, $0, $1) } == 0)
        SystemdNotifier(socket: "@" + name).stopping()
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&poller, 1, 1000) == 1)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &buffer, buffer.count, 0)
        #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self) == "STOPPING=1")
    }

    @Test func withoutASocketNothingIsSent() {
        #expect(SystemdNotifier(socket: "").socket == nil)
        #expect(SystemdNotifier(socket: nil).socket == nil)
    }

    @Test func aFailedCommandNamesItselfAndWhatItSaid() {
        #expect {
            try BoundedCommand.run("/bin/sh", ["-c", "echo 'no such unit' >&2; exit 4"], timeout: .seconds(10))
        } throws: { error in
            let text = "\(error)"
            return text.contains("/bin/sh -c") && text.contains("exited 4") && text.contains("no such unit")
        }
        #expect(throws: Never.self) { try BoundedCommand.run("/bin/true", [], timeout: .seconds(10)) }
    }

    @Test func aCommandThatDoesNotEndInTimeIsKilled() {
        let start = MonotonicInstant.current()
        #expect {
            try BoundedCommand.run("/bin/sleep", ["30"], timeout: .milliseconds(200))
        } throws: { error in
            (error as? SystemError)?.errno == ETIMEDOUT && "\(error)".contains("/bin/sleep 30")
        }
        #expect(MonotonicInstant.current().since(start) < .seconds(5))
    }

    /// Outside systemd (these machines) systemctl refuses; the error names the command.
    @Test func settingMemoryHighRunsSystemctl() {
        #expect {
            try SystemdUnitProperties(unit: "extensiond-test-none.service").setMemoryHigh(1 << 20)
        } throws: { error in
            "\(error)".contains("systemctl set-property --runtime extensiond-test-none.service MemoryHigh=1048576")
        }
    }
}
