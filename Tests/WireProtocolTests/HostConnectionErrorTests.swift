import ExtensiondTestSupport
import Glibc
import HostClient
import Sockets
import Testing

/// HostClient's errors carry a code a host can compare, and the details of that code,
/// on a real socket whose far end plays a misbehaving supervisor.
@Suite struct HostConnectionErrorTests {
    @Test func nothingListeningIsUnreachableWithTheSystemsReason() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("host.sock")
        do {
            _ = try HostConnection(path: path, timeout: .zero)
            Issue.record("connected to \(path), where nothing listens")
        } catch {
            #expect(error.code == .unreachable)
            #expect(error.errno == ENOENT)
            #expect(error.description.contains(path), "\(error)")
        }
    }

    @Test func anInvalidLineIsAProtocolViolationAndAClosedSocketIsClosed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("host.sock")
        let listener = try UnixSocket.listen(path: path, mode: 0o600)
        defer { close(listener) }
        let connection = try HostConnection(path: path, timeout: .zero)
        let supervisor = accept(listener, nil, nil)
        #expect(supervisor >= 0)
        try UnixSocket.writeAll(supervisor, Array("{\"type\":\"no-such-message\"}\n".utf8))
        do {
            _ = try connection.receive()
            Issue.record("an unknown message type was accepted")
        } catch {
            #expect(error.code == .protocolViolation)
            #expect(error.protocolError == .unknownType("no-such-message"))
        }
        close(supervisor)
        do {
            _ = try connection.receive()
            Issue.record("read from a socket whose peer closed it")
        } catch {
            #expect(error.code == .closed)
        }
    }
}
