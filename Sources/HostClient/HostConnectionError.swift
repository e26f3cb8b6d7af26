#if canImport(Glibc)
import Glibc
#endif
import HostProtocol
import WireProtocol

/// Why a host's connection to the supervisor failed.
public enum HostConnectionError: Error, CustomStringConvertible {
    /// Nothing accepted connections on `path` in time; `errno` is the last attempt's.
    case unreachable(path: String, errno: Int32)
    /// The supervisor closed the connection.
    case closed
    /// A system call failed with this errno.
    case io(operation: String, errno: Int32)
    /// The supervisor sent something that is not a valid host-protocol message.
    case protocolViolation(ProtocolError)
    /// ``HostConnection/request(_:)`` of a message without `id`, whose answer could not be told apart.
    case unanswerable(String)
    /// The supervisor answered a request with a message of another kind.
    case unexpectedAnswer(SupervisorToHost)

    public var description: String {
        switch self {
        case .unreachable(let path, let code): "cannot connect to \(path): \(String(cString: strerror(code)))"
        case .closed: "the supervisor closed the connection"
        case .io(let operation, let code): "\(operation): \(String(cString: strerror(code)))"
        case .protocolViolation(let error): "the supervisor sent an invalid message: \(error)"
        case .unanswerable(let type): "a \(type) without id has no answer to wait for"
        case .unexpectedAnswer(let message): "the supervisor answered with \(message.type)"
        }
    }
}
