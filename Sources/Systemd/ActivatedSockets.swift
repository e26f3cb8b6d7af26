import CSystemd
import Glibc
import Sockets

/// Listening sockets that systemd passed by socket activation (`extensiond.socket`,
/// `sd_listen_fds_with_names`): systemd holds them while the daemon restarts, so clients
/// that connect meanwhile wait in the backlog instead of being refused.
///
/// A socket is found by the path it is bound to, which the daemon's configuration decides
/// (`runtime_dir`); its name (`FileDescriptorName=`) only names it in errors.
public struct ActivatedSockets {
    /// Each passed socket: its name, its descriptor and the path it is bound to
    /// (`nil`: not a UNIX stream socket bound to a path).
    public private(set) var unclaimed: [(name: String, fd: Int32, path: String?)]

    /// Takes the sockets passed to this process and unsets `$LISTEN_FDS`, `$LISTEN_PID`
    /// and `$LISTEN_FDNAMES`, so that no child takes them for its own.
    public init() {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = ext_sd_listen_fds_with_names(1, &names)
        defer {
            for index in 0..<Int(max(0, count)) { free(names?[index]) }
            free(names)
        }
        unclaimed = (0..<max(0, count)).map { index in
            let fd = SD_LISTEN_FDS_START + index
            let name = names?[Int(index)].map { String(cString: $0) } ?? "unknown"
            return (name, fd, ext_sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 ? Self.boundPath(fd) : nil)
        }
    }

    /// Closes every descriptor this process inherited above stderr, except the sockets that
    /// socket activation passed (`$LISTEN_FDS` for this pid). Call it first, before anything
    /// opens a descriptor: descriptors a parent leaked into the daemon would count against
    /// its open-file limit, which bounds hosts and launches, and reach nothing it serves.
    public static func closeInherited() {
        let first = SD_LISTEN_FDS_START + max(0, ext_sd_listen_fds(0))
        guard let directory = opendir("/proc/self/fd") else { return }
        var inherited: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let fd = Int32(name), fd >= first, fd != dirfd(directory) { inherited.append(fd) }
        }
        closedir(directory)
        for fd in inherited { close(fd) }
    }

    /// The socket bound to `path`, if systemd passed one; it is the caller's from then on.
    public mutating func take(path: String) -> Int32? {
        guard let index = unclaimed.firstIndex(where: { $0.path == path }) else { return nil }
        return unclaimed.remove(at: index).fd
    }

    /// Closes the sockets nobody took and says which they were: a socket unit whose
    /// `ListenStream=` paths differ from the configuration's `runtime_dir`.
    public mutating func closeUnclaimed() -> [String] {
        defer { unclaimed.removeAll() }
        return unclaimed.map { socket in
            close(socket.fd)
            return "\(socket.name) (\(socket.path ?? "not a UNIX stream socket bound to a path"))"
        }
    }

    private static func boundPath(_ fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let pathLength = Int(length) - MemoryLayout.offset(of: \sockaddr_un.sun_path)!
        guard pathLength > 1 else { return nil }
        return withUnsafeBytes(of: address.sun_path) { bytes in
            let path = bytes.prefix(pathLength)
            guard path.first != 0 else { return nil }
            return String(decoding: path.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
