import CLinux

/// Which file a path names, and the state of its contents: what a cache of anything
/// derived from a file (a program's run path, a sandbox's granted directories) compares
/// before reuse.
public struct FileIdentity: Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    /// When the file was made, in nanoseconds since the epoch (0 where the file system keeps
    /// no birth time): a directory removed and made again is another file even where the
    /// file system hands out the freed inode number at once, as ext4 does.
    public var born: Int64
    /// When its contents last changed, in nanoseconds since the epoch.
    public var modified: Int64

    /// The identity of what `path` names now (symbolic links followed); `nil` when it
    /// cannot be looked up.
    public init?(of path: String) {
        var identity = ext_file_identity()
        guard ext_file_identity(path, &identity) == 0 else { return nil }
        device = identity.device
        inode = identity.inode
        born = identity.born_seconds &* 1_000_000_000 &+ Int64(identity.born_nanoseconds)
        modified = identity.modified_seconds &* 1_000_000_000 &+ Int64(identity.modified_nanoseconds)
    }

    /// The same file, whatever happened to its contents: a directory's modification time
    /// changes with every entry made or removed in it.
    public func isSameFile(as other: FileIdentity) -> Bool {
        device == other.device && inode == other.inode && born == other.born
    }
}
