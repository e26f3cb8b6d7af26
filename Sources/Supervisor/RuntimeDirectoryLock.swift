import DaemonSupport
import EventLoop
import Glibc
import Sockets

/// An exclusive lock on the runtime directory, so that a second daemon on the same
/// directory refuses to start instead of stealing the sockets of the first.
final class RuntimeDirectoryLock {
    private let fd: Int32

    /// Takes `<directory>/extensiond.lock` and writes our pid into it.
    init(directory: String) throws(SupervisorError) {
        let path = directory + "/extensiond.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(SystemError("open \(path)")) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.readPid(fd)
            close(fd)
            throw .alreadyRunning(directory: directory, pid: holder)
        }
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.fd = fd
    }

    deinit { close(fd) }

    private static func readPid(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingWhitespace)
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
