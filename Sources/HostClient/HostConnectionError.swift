import HostProtocol
import WireProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Why a host's connection to the supervisor failed: compare ``code`` with the codes you
/// handle. A struct rather than an enum, so that a code added in a later version does not
/// break a host's `switch`.
public struct HostConnectionError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure; later versions may add codes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case unreachable, closed, io, protocolViolation, unanswerable, unexpectedAnswer
        }
        private let kind: Kind

        /// Nothing accepted connections on the socket in time; ``HostConnectionError/errno``
        /// is the last attempt's.
        public static let unreachable = Code(kind: .unreachable)
        /// The supervisor closed the connection.
        public static let closed = Code(kind: .closed)
        /// A system call failed with ``HostConnectionError/errno``.
        public static let io = Code(kind: .io)
        /// The supervisor sent something that is not a valid host-protocol message
        /// (``HostConnectionError/protocolError``).
        public static let protocolViolation = Code(kind: .protocolViolation)
        /// ``HostConnection/request(_:)`` of a message without `id`, whose answer could not
        /// be told apart.
        public static let unanswerable = Code(kind: .unanswerable)
        /// The supervisor answered a request with a message of another kind
        /// (``HostConnectionError/answer``).
        public static let unexpectedAnswer = Code(kind: .unexpectedAnswer)

        /// The code's name, as in `unreachable`.
        public var description: String { kind.rawValue }
    }

    /// What failed.
    public let code: Code
    /// What failed, in words: the socket's path or the operation, and the system's reason.
    public let description: String
    /// The system's error number, for ``Code/unreachable`` and ``Code/io``.
    public let errno: Int32?
    /// What was wrong with the supervisor's message, for ``Code/protocolViolation``.
    public let protocolError: ProtocolError?
    /// The answer of another kind, for ``Code/unexpectedAnswer``.
    public let answer: SupervisorToHost?

    private init(
        _ code: Code, _ description: String, errno: Int32? = nil, protocolError: ProtocolError? = nil, answer: SupervisorToHost? = nil
    ) {
        self.code = code
        self.description = description
        self.errno = errno
        self.protocolError = protocolError
        self.answer = answer
    }

    // The errors by code, for hosts that fail their own loop with one (a `poll` as `io`).

    /// Nothing accepted connections on `path`; `errno` is the last attempt's.
    public static func unreachable(path: String, errno code: Int32) -> Self {
        Self(.unreachable, "cannot connect to \(path): \(String(cString: strerror(code)))", errno: code)
    }

    /// The supervisor closed the connection.
    public static let closed = Self(.closed, "the supervisor closed the connection")

    /// `operation` failed with `errno`.
    public static func io(operation: String, errno code: Int32) -> Self {
        Self(.io, "\(operation): \(String(cString: strerror(code)))", errno: code)
    }

    /// The supervisor sent an invalid message.
    public static func protocolViolation(_ error: ProtocolError) -> Self {
        Self(.protocolViolation, "the supervisor sent an invalid message: \(error)", protocolError: error)
    }

    /// A request of message `type`, which has no `id`.
    public static func unanswerable(_ type: String) -> Self {
        Self(.unanswerable, "a \(type) without id has no answer to wait for")
    }

    /// `message` answered a request it does not answer.
    public static func unexpectedAnswer(_ message: SupervisorToHost) -> Self {
        Self(.unexpectedAnswer, "the supervisor answered with \(message.type)", answer: message)
    }
}
