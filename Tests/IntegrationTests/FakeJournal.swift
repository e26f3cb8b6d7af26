import ExtensiondTestSupport
import Foundation

/// A stand-in for journald: a datagram socket the test binds, mounted over
/// `/run/systemd/journal` in a private mount namespace that only the daemon enters
/// (libsystemd's `sd_journal_sendv` has the socket path built in). Decodes the native
/// protocol: `NAME=value\n`, or `NAME\n`, a 64-bit little-endian length, the value, `\n`.
final class FakeJournal {
    let directory: String
    private let fd: Int32
    private(set) var entries: [[String: String]] = []

    /// Binds `<directory>/socket`.
    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array((directory + "/socket").utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw TestSupportError("bind \(directory)/socket: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// The daemon's command prefix: a private mount namespace where `/run` is a fresh
    /// tmpfs and `/run/systemd/journal` is this directory.
    var wrapper: [String] {
        [
            "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
            "mount -t tmpfs extensiond-test /run && mkdir -p /run/systemd/journal && mount --bind '\(directory)' /run/systemd/journal && exec \"$@\"",
            "wrapper",
        ]
    }

    /// Takes in what arrived within `timeout` seconds; returns all entries so far.
    @discardableResult
    func receive(timeout: Double = 0.2) -> [[String: String]] {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, Int32(timeout * 1000)) > 0 {
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { break }
            entries.append(Self.decode(buffer[..<count]))
        }
        return entries
    }

    /// Entries whose fields include every one of `fields`.
    func entries(matching fields: [String: String]) -> [[String: String]] {
        entries.filter { entry in fields.allSatisfy { entry[$0.key] == $0.value } }
    }

    static func decode(_ datagram: ArraySlice<UInt8>) -> [String: String] {
        var fields: [String: String] = [:]
        var rest = datagram[...]
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            let line = rest[..<newline]
            if let equals = line.firstIndex(of: UInt8(ascii: "=")) {
                fields[String(decoding: line[..<equals], as: UTF8.self)] = String(decoding: line[(equals + 1)...], as: UTF8.self)
                rest = rest[(newline + 1)...]
            } else {
                let start = newline + 1
                guard rest.endIndex - start >= 8 else { break }
                let length = rest[start..<(start + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
                let value = rest[(start + 8)...].prefix(length)
                fields[String(decoding: line, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
                rest = rest[min(rest.endIndex, start + 8 + length + 1)...]
            }
        }
        return fields
    }
}
