#if canImport(Glibc)
import Glibc
#endif

/// The extension's end of the fd 3 socket, read with blocking calls on one thread.
///
/// Messages that arrive while a synchronous request waits for its answer are kept in
/// arrival order and handed out by later ``receive()`` calls.
final class SupervisorConnection {
    private let descriptor: Int32
    private var framer = LineFramer()
    /// One page: what the supervisor sends an extension is mostly short, and the buffer
    /// stays allocated while the extension idles; a longer line takes a few more reads.
    private var readBuffer = [UInt8](repeating: 0, count: 4096)
    private var queued: [SupervisorToExtension] = []
    private var nextRequestID: RequestID = 1

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func send(_ message: ExtensionToSupervisor) throws(ConnectionError) {
        let line = message.encodedLine()
        var sent = 0
        while sent < line.count {
            let result = line.withUnsafeBytes { bytes in
                Glibc.send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .io(errno)
            }
            sent += result
        }
    }

    /// The next message: a queued one first, else the next one read from the socket.
    func receive() throws(ConnectionError) -> SupervisorToExtension {
        if !queued.isEmpty { return queued.removeFirst() }
        return try read()
    }

    /// Sends the request `makeRequest` builds around a fresh id and returns the answer that
    /// `reply` recognizes for that id, queueing every other message read meanwhile.
    func request<Answer>(
        _ makeRequest: (RequestID) -> ExtensionToSupervisor,
        reply: (SupervisorToExtension, RequestID) -> Answer?
    ) throws(ConnectionError) -> Answer {
        let id = nextRequestID
        nextRequestID = id.next
        try send(makeRequest(id))
        while true {
            let message = try read()
            if let answer = reply(message, id) { return answer }
            queued.append(message)
        }
    }

    private func read() throws(ConnectionError) -> SupervisorToExtension {
        while true {
            do {
                if let line = try framer.nextLine() { return try SupervisorToExtension.decode(line: line) }
            } catch {
                throw .protocolViolation(error)
            }
            let count = readBuffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { throw .closed }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(errno)
            }
            do {
                try framer.append(readBuffer[0..<count])
            } catch {
                throw .protocolViolation(error)
            }
        }
    }
}

/// Why the connection to the supervisor is unusable.
enum ConnectionError: Error, CustomStringConvertible {
    /// The supervisor closed the socket.
    case closed
    /// A system call failed with this errno.
    case io(Int32)
    /// The supervisor sent something that is not a valid message.
    case protocolViolation(ProtocolError)

    var description: String {
        switch self {
        case .closed: "the supervisor closed the connection"
        case .io(let code): "socket error: \(String(cString: strerror(code)))"
        case .protocolViolation(let error): "\(error)"
        }
    }
}
