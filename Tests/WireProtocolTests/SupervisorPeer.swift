import Testing
import WireProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The supervisor's end of a socketpair, for driving an extension in tests. Reads time out
/// after a few seconds so that a broken extension fails the test instead of hanging it.
final class SupervisorPeer {
    let descriptor: Int32
    /// The other end, for the extension; closed by ``closeExtensionEnd()``.
    private(set) var extensionDescriptor: Int32
    private var framer = LineFramer()

    init() throws {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw PeerError.system("socketpair", errno)
        }
        descriptor = pair[0]
        extensionDescriptor = pair[1]
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
        closeExtensionEnd()
    }

    func closeExtensionEnd() {
        if extensionDescriptor >= 0 { close(extensionDescriptor) }
        extensionDescriptor = -1
    }

    func send(_ message: SupervisorToExtension) throws {
        try sendRaw(message.encodedLine())
    }

    func sendRaw(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw PeerError.system("send", errno) }
    }

    /// The next message from the extension, or `nil` at end of file.
    func receive() throws -> ExtensionToSupervisor? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let line = try framer.nextLine() { return try ExtensionToSupervisor.decode(line: line) }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return nil }
            guard count > 0 else { throw PeerError.system("recv", errno) }
            try framer.append(buffer[0..<count])
        }
    }

    /// The next message, which must be there.
    func expectMessage(sourceLocation: SourceLocation = #_sourceLocation) throws -> ExtensionToSupervisor {
        try #require(try receive(), "the extension closed the connection", sourceLocation: sourceLocation)
    }
}

enum PeerError: Error {
    case system(String, Int32)
}
