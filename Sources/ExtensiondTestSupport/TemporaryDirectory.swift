/// Helpers for tests: a real daemon in a throw-away directory (and cgroup), its
/// notify socket, and the CLI, run as real processes; and the host-protocol seam
/// (``HostTestSetup``), which also wires the daemon's coordinator and host server in the
/// test process on a virtual clock (docs/TESTING.md).
///
/// This module is test support only: the product never links it. It must not change how
/// a room behaves: what it wires in process is wired as `Daemon` wires it.
import Foundation
import Glibc

/// A fresh directory under /tmp (or `base`), removed with everything in it on ``remove()`` or deinit.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    /// Short paths: UNIX socket paths must stay under 108 bytes.
    public init(prefix: String = "exd", in base: String = "/tmp") throws {
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let created else {
            throw TestSupportError("mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        path = created
    }

    deinit { remove() }

    /// Detaches the file systems mounted below it first (a daemon's `disk_max` volumes, a
    /// test's tmpfs), even if a test failed before it could.
    public func remove() {
        let mountinfo = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        let below = mountinfo.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count > 4 else { return nil }
            // mountinfo escapes a space in a path as \040; these paths have none.
            let point = String(fields[4])
            return point.hasPrefix(path + "/") ? point : nil
        }
        for point in below.sorted(by: { $0.count > $1.count }) { umount2(point, Int32(MNT_DETACH)) }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/name`.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `contents` to `path/name` (replacing it atomically), creating intermediate
    /// directories.
    ///
    /// The file is written through a close-on-exec descriptor: tests run in parallel and
    /// spawn processes, and a child that inherited a descriptor open for writing would
    /// make executing the file fail with ETXTBSY for as long as it lives.
    @discardableResult
    public func write(_ name: String, _ contents: String, mode: Int = 0o644) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let temporary = target + ".writing"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw TestSupportError("open \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(contents.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let writeError = errno
        // The mode given wins over the umask.
        fchmod(fd, mode_t(mode))
        close(fd)
        guard written == bytes.count else { throw TestSupportError("write \(temporary): \(String(cString: strerror(writeError)))") }
        guard rename(temporary, target) == 0 else { throw TestSupportError("rename \(temporary): \(String(cString: strerror(errno)))") }
        return target
    }
}

/// A failure in test set-up, with what went wrong.
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Where `swift build` put the package's executables: beside the test bundle.
public enum Binaries {
    public static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = (executable as NSString).deletingLastPathComponent
        // The xctest bundle may be a directory on some toolchains.
        if directory.hasSuffix(".xctest") || directory.contains(".xctest/") {
            directory = String(directory[..<directory.range(of: ".xctest")!.lowerBound])
            directory = (directory as NSString).deletingLastPathComponent
        }
        return directory
    }()

    public static func path(_ name: String) -> String { directory + "/" + name }

    /// The package's root (for shipped files such as config/ and units/).
    public static func packageRoot(from file: String = #filePath) -> String {
        var directory = (file as NSString).deletingLastPathComponent
        while !FileManager.default.fileExists(atPath: directory + "/Package.swift") && directory != "/" {
            directory = (directory as NSString).deletingLastPathComponent
        }
        return directory
    }
}
