/// Helpers for tests: a real daemon in a throw-away directory (and cgroup), its
/// notify socket, and the CLI, run as real processes.
///
/// This module is test support only: the product never links it.
import Foundation

/// A fresh directory under /tmp, removed with everything in it on ``remove()`` or deinit.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    /// Short paths: UNIX socket paths must stay under 108 bytes.
    public init(prefix: String = "exd") throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let created else {
            throw TestSupportError("mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        path = created
    }

    deinit { remove() }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/name`.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `contents` to `path/name`, creating intermediate directories.
    @discardableResult
    public func write(_ name: String, _ contents: String, mode: Int = 0o644) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try contents.write(toFile: target, atomically: true, encoding: .utf8)
        chmod(target, mode_t(mode))
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
