#if canImport(Glibc)
import Glibc
#endif

/// A kernel file (`/proc/PID/statm`, a cgroup's `memory.current` or `memory.stat`) kept
/// open and re-read with `pread`: reading many of them for every `status`, or a few on the
/// pressure path, would otherwise spend most of its time in path lookups and opens.
public final class CounterFile {
    public let path: String
    private let fd: Int32

    /// Opens `path` for reading.
    public init(path: String) throws(ProcessError) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .systemCall("open", subject: path, errno: errno) }
    }

    deinit { close(fd) }

    /// The `index`th whitespace-separated number of the file as it reads now.
    public func number(at index: Int = 0) throws(ProcessError) -> UInt64 {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let count = withUnsafeMutableBytes(of: &buffer) { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw .systemCall("read", subject: path, errno: count < 0 ? errno : ENODATA) }
        let value: UInt64? = withUnsafeBytes(of: &buffer) { raw in
            let fields = raw[..<count].split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
            guard index < fields.count, !fields[index].isEmpty, fields[index].count <= 19,
                fields[index].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
            return fields[index].reduce(0) { $0 &* 10 &+ UInt64($1 - UInt8(ascii: "0")) }
        }
        guard let value else { throw .malformed(path: path, expected: "a number at field \(index + 1)") }
        return value
    }

    /// The whole file as it reads now. One `pread` for a file that fits in a chunk: a
    /// generated file (`memory.stat`) is generated anew by each read that does not follow
    /// the last, so a short read ends it.
    public func contents() throws(ProcessError) -> [UInt8] {
        let chunk = 16 << 10
        var bytes: [UInt8] = []
        while true {
            let start = bytes.count
            bytes += repeatElement(0, count: chunk)
            let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + start, chunk, off_t(start)) }
            guard count >= 0 else { throw .systemCall("read", subject: path, errno: errno) }
            bytes.removeLast(chunk - count)
            if count < chunk { return bytes }
        }
    }
}
