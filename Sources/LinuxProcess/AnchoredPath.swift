#if canImport(Glibc)
import Glibc
#endif

/// A path and, where the caller keeps a directory above it open, the rest of the path
/// below that directory: the kernel then walks those few components instead of every
/// component from `/` (a launch opens about fifteen cgroup files; bench/README.md, "The
/// launch floor, fourth pass").
public struct AnchoredPath: Sendable, Hashable, CustomStringConvertible {
    /// The whole path: what messages name.
    public let path: String
    /// An open directory `relativePath` starts from, or `AT_FDCWD`.
    public let directory: Int32
    /// `path` below `directory` (all of `path` with `AT_FDCWD`).
    public let relativePath: String

    /// `path` walked from `/` (or the working directory).
    public init(_ path: String) {
        self.init(path, directory: AT_FDCWD, relativePath: path)
    }

    /// `path`, which is `relativePath` below the open `directory`.
    public init(_ path: String, directory: Int32, relativePath: String) {
        self.path = path
        self.directory = directory
        self.relativePath = relativePath
    }

    public var description: String { path }
}
