import CLinux
import DaemonSupport
import EventLoop
import Glibc
import Sockets

/// Directories of bounded size (`disk_max`, docs/SECURITY.md): each is an ext4 file system
/// in an image `<state_dir>/volumes/<name>.img`, loop-mounted on the directory, so that a
/// write past it fails with ENOSPC in the writer, by the kernel. Images are sparse (a
/// volume costs what its files use), and one is made only while `state_dir` has room for
/// every volume to fill up and `state_reserve` besides: tenants filling their directories
/// never take the daemon's room.
///
/// Project quotas would need no image, but need a kernel with CONFIG_QUOTA and a file
/// system made with the feature, which neither the development machines nor most
/// installations have; a loop device needs only root. Where it cannot be had (not root,
/// no /dev/loop-control, no mkfs.ext4), ``Isolation`` enforces `disk_max` at launch instead.
/// mkfs.ext4 runs once per volume size (about 50 ms, bounded by ``mkfsTimeout``), making an
/// empty template `<state_dir>/volumes/empty-<bytes>.img`; a volume is a sparse copy of its
/// template (its 300 KiB of metadata: well under a millisecond) whose root directory is
/// then given to its owner. Volumes of one size share the template's UUID, which ext4
/// does not mind.
///
/// Mounts stay for the daemon's life (a restarted daemon finds and keeps them) and are
/// lazily unmounted at a clean stop; the loop devices detach themselves then.
package final class DiskVolumes {
    private let stateDirectory: String
    /// Directories mounted (or found mounted), with their image.
    private var mounted: [String: String] = [:]
    /// Why no volume can be made here, once known: ``bound(_:name:size:owner:reserve:)`` then returns it.
    private(set) var unavailable: String?
    /// File systems mounted since start: a change says a directory was mounted afresh.
    private(set) var mounts = 0
    private let mkfs: String?

    static let mkfsTimeout = Duration.seconds(30)
    /// Where e2fsprogs installs it: sbin, which a daemon's search path may lack.
    static let mkfsCandidates = ["/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4", "/usr/bin/mkfs.ext4"]

    init(stateDirectory: String, runsAsRoot: Bool) {
        self.stateDirectory = stateDirectory
        mkfs = Self.mkfsCandidates.first { access($0, X_OK) == 0 }
        if !runsAsRoot {
            unavailable = "the daemon is not root (mounting a file system needs it)"
        } else if access("/dev/loop-control", R_OK | W_OK) != 0 {
            unavailable = "there is no /dev/loop-control"
        } else if mkfs == nil {
            unavailable = "mkfs.ext4 is not installed (e2fsprogs)"
        }
    }

    /// Mounts the volume `name` of `size` bytes on `directory` (made before, empty or
    /// already the volume), making its image first if there is none. Returns nil when the
    /// directory is bounded, else why it is not: volumes are unavailable, `directory` holds
    /// files from before it was bounded, or `state_dir` has no room for the volume now (a
    /// later launch tries again).
    func bound(
        _ directory: String, name: String, size: UInt64, owner: (uid: uid_t, gid: gid_t)?,
        reserve: UInt64
    ) throws(SystemError) -> String? {
        if let unavailable { return unavailable }
        let image = stateDirectory + "/volumes/" + name + ".img"
        // Checked each time: an operator may have unmounted it.
        if Self.isMountPoint(directory) {
            mounted[directory] = image
            return nil
        }
        var made = false
        if access(image, F_OK) != 0 {
            guard Self.isUnused(directory) else { return "\(directory) holds files from before disk_max (move them out to have it bounded)" }
            if let noRoom = try make(image, size: size, reserve: reserve) { return noRoom }
            rmdir(directory + "/tmp")
            made = true
        }
        try mount(image, on: directory)
        mounts += 1
        if made, let owner, chown(directory, owner.uid, owner.gid) != 0 {
            // Not left half made: the next launch makes it again.
            let error = SystemError("give the root of \(image) to \(owner.uid):\(owner.gid)")
            release(directory)
            unlink(image)
            throw error
        }
        mounted[directory] = image
        return nil
    }

    /// Lazily unmounts the volume on `directory`, if any, so that the directory and its
    /// image can be moved (a removed app's data is set aside).
    func release(_ directory: String) {
        if mounted.removeValue(forKey: directory) != nil || Self.isMountPoint(directory) {
            umount2(directory, Int32(MNT_DETACH))
        }
    }

    /// Lazily unmounts every volume (at a clean stop).
    package func unmountAll() {
        for directory in mounted.keys.sorted() { umount2(directory, Int32(MNT_DETACH)) }
        mounted = [:]
    }

    /// Makes `image`, sparse, a copy of the empty file system of its size; returns why not
    /// when `state_dir` lacks the room.
    private func make(_ image: String, size: UInt64, reserve: UInt64) throws(SystemError) -> String? {
        try FileSystem.createDirectories(String(image[..<image.lastIndex(of: "/")!]), mode: 0o700)
        var space = statvfs()
        guard statvfs(stateDirectory, &space) == 0 else { throw SystemError("statvfs \(stateDirectory)") }
        let free = UInt64(space.f_bavail) * UInt64(space.f_frsize)
        let unfilled = Self.unfilledBytes(of: Array(Set(mounted.values)))
        guard free >= unfilled + size + reserve else {
            return "no room for its volume: \(size) bytes, \(unfilled) the other volumes may still fill and the daemon's "
                + "reserve of \(reserve) (state_reserve) do not fit in the \(free) bytes free in \(stateDirectory)"
        }
        let template = try self.template(size: size)
        let source = open(template, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard source >= 0 else { throw SystemError("open \(template)") }
        defer { close(source) }
        let fd = open(image, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("create \(image)") }
        let copied = ext_copy_sparse(source, fd)
        let copyError = errno
        close(fd)
        guard copied == 0 else {
            unlink(image)
            throw SystemError("copy \(template) to \(image)", errno: copyError)
        }
        return nil
    }

    /// The empty file system of `size` bytes, made with mkfs.ext4 the first time.
    private func template(size: UInt64) throws(SystemError) -> String {
        let template = stateDirectory + "/volumes/empty-\(size).img"
        if access(template, F_OK) == 0 { return template }
        // Made under another name and renamed: a template that exists is whole.
        let making = template + ".new"
        unlink(making)
        let fd = open(making, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("create \(making)") }
        let sized = ftruncate(fd, off_t(size))
        let sizeError = errno
        close(fd)
        do throws(SystemError) {
            guard sized == 0 else { throw SystemError("size \(making) to \(size) bytes", errno: sizeError) }
            try BoundedCommand.run(mkfs ?? "mkfs.ext4", ["-q", "-F", "-m", "0", making], timeout: Self.mkfsTimeout)
            guard rename(making, template) == 0 else { throw SystemError("rename \(making) to \(template)") }
        } catch {
            unlink(making)
            throw error
        }
        return template
    }

    private func mount(_ image: String, on directory: String) throws(SystemError) {
        let file = open(image, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else { throw SystemError("open \(image)") }
        var number: Int32 = -1
        let device = ext_loop_attach(file, &number)
        let attachError = errno
        close(file)
        guard device >= 0 else { throw SystemError("attach \(image) to a loop device", errno: attachError) }
        // Closing the device before the mount holds it would detach it (autoclear).
        defer { close(device) }
        guard Glibc.mount("/dev/loop\(number)", directory, "ext4", UInt(MS_NOSUID | MS_NODEV), nil) == 0 else {
            throw SystemError("mount \(image) (/dev/loop\(number)) on \(directory)")
        }
    }

    /// What the images may still take from `state_dir`: their sizes less what they hold.
    private static func unfilledBytes(of images: [String]) -> UInt64 {
        images.reduce(0) { total, image in
            var info = stat()
            guard stat(image, &info) == 0 else { return total }
            let allocated = UInt64(info.st_blocks) * 512
            return total + (UInt64(info.st_size) > allocated ? UInt64(info.st_size) - allocated : 0)
        }
    }

    private static func isMountPoint(_ directory: String) -> Bool {
        var own = stat()
        var parent = stat()
        return stat(directory, &own) == 0 && stat(directory + "/..", &parent) == 0 && own.st_dev != parent.st_dev
    }

    /// Empty, or holding only the empty `tmp` an unbounded launch made.
    private static func isUnused(_ directory: String) -> Bool {
        guard let stream = opendir(directory) else { return true }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = name(of: entry)
            if name == "tmp" && usage(of: directory + "/tmp") == 0 { continue }
            if ![".", ".."].contains(name) { return false }
        }
        return true
    }

    static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

extension DiskVolumes {
    /// The bytes allocated to the files below `directory` (not following links or other
    /// file systems), for `disk_max` where no volume bounds it; counts at most
    /// ``usageEntryLimit`` entries, so a tree of millions of files costs a bounded walk.
    static func usage(of directory: String) -> UInt64 {
        var total: UInt64 = 0
        var entries = 0
        var pending = [directory]
        var root = stat()
        guard lstat(directory, &root) == 0 else { return 0 }
        while let next = pending.popLast(), entries < usageEntryLimit {
            guard let stream = opendir(next) else { continue }
            defer { closedir(stream) }
            while let entry = readdir(stream), entries < usageEntryLimit {
                let name = name(of: entry)
                guard name != "." && name != ".." else { continue }
                entries += 1
                var info = stat()
                let path = next + "/" + name
                guard lstat(path, &info) == 0, info.st_dev == root.st_dev else { continue }
                total += UInt64(info.st_blocks) * 512
                if (info.st_mode & S_IFMT) == S_IFDIR { pending.append(path) }
            }
        }
        return total
    }

    static let usageEntryLimit = 100_000
}
