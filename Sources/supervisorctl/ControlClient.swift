import ControlProtocol
import Glibc
import Sockets
import WireProtocol

/// A blocking connection to the daemon's control socket.
struct ControlClient {
    let socketPath: String

    /// Sends `request` and hands each answer to `body` until one is the last (`done`, or
    /// any answer to a request that is not a stream) or `body` returns false. A daemon
    /// that closes the connection before that, or an answer over
    /// ``ControlLimits/answerBytes``, is an error: never a silent empty output.
    func send(_ request: ControlRequest, _ body: (ControlResponse) throws -> Bool) throws {
        let fd: Int32
        do {
            fd = try UnixSocket.connect(path: socketPath)
        } catch {
            throw ClientError.unreachable(socketPath: socketPath, reason: error)
        }
        defer { close(fd) }
        try UnixSocket.writeAll(fd, ControlCodec.line(request))
        var framer = LineFramer(maxLineLength: ControlLimits.answerBytes)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            do {
                while let line = try framer.nextLine() {
                    if try !body(ControlCodec.decode(ControlResponse.self, from: line)) { return }
                }
            } catch ProtocolError.oversized(let limit) {
                throw ClientError.protocolViolation("an answer longer than \(limit) bytes, the control protocol's limit; ask for fewer lines or names")
            } catch let error as ControlDecodingError {
                throw ClientError.protocolViolation("\(error)")
            }
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw ClientError.protocolViolation("the daemon closed the connection before its last answer") }
            do {
                try framer.append(chunk[..<count])
            } catch {
                throw ClientError.protocolViolation(
                    "an answer longer than \(ControlLimits.answerBytes) bytes, the control protocol's limit; ask for fewer lines or names")
            }
        }
    }

    /// Sends `request` and returns its single answer.
    func call(_ request: ControlRequest) throws -> ControlResponse {
        var answer: ControlResponse?
        try send(request) { response in
            answer = response
            return false
        }
        guard let answer else { throw ClientError.protocolViolation("the daemon closed the connection without answering") }
        return answer
    }
}

/// Why supervisorctl could not get an answer.
enum ClientError: Error, CustomStringConvertible {
    case unreachable(socketPath: String, reason: SystemError)
    case protocolViolation(String)

    var description: String {
        switch self {
        case .unreachable(let path, let reason) where reason.errno == EACCES || reason.errno == EPERM:
            return "permission denied on \(path): run as root or as a member of the socket's group"
        case .unreachable(let path, let reason) where reason.errno == ENOENT || reason.errno == ECONNREFUSED:
            return "extensiond is not running (nothing serves \(path)); start it or pass --socket"
        case .unreachable(let path, let reason):
            return "cannot reach extensiond at \(path): \(reason)"
        case .protocolViolation(let message):
            return "unexpected answer from extensiond: \(message)"
        }
    }

    var exitStatus: CLIExitCode {
        switch self {
        case .unreachable(_, let reason) where reason.errno == EACCES || reason.errno == EPERM: .unknownOrRefused
        case .unreachable: .unreachable
        case .protocolViolation: .failed
        }
    }
}
