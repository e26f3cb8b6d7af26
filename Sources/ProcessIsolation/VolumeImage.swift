import CLinux
import DaemonSupport
import Glibc
import Sockets

/// Making and mounting one `disk_max` volume (``DiskVolumes``): the blocking part, run
/// beside the loop. It reads no state of the daemon; what it needs comes in the value.
struct VolumeImage: Sendable {
    var directory: String
    var image: String
    var stateDirectory: String
    var size: UInt64
    var owner: DirectoryOwner?
    var reserve: UInt64
    /// Images of the other volumes (mounted, or made by earlier jobs): what they may still
    /// take from `state_dir` counts against the room for this one.
    var otherImages: [String]
    var mkfs: String?
    /// There was no image: the job makes it (from the template of its size).
    var makesImage: Bool

    /// How a job ended.
    enum Outcome: Sendable {
        case mounted
        /// Not made: why (no room in `state_dir`); a later launch tries again.
        case refused(String)
        case failed(SystemError)
        /// The daemon is stopping: not started.
        case cancelled
    }

    static let mkfsTimeout = Duration.seconds(30)

    /// Makes the image when there is none, and mounts it on the directory.
    func prepare() -> Outcome {
        do throws(SystemError) {
            if makesImage {
                if let noRoom = try make() { return .refused(noRoom) }
                rmdir(directory + "/tmp")
            }
            try mount()
            if makesImage, let owner, chown(directory, owner.uid, owner.gid) != 0 {
                // Not left half made: the next launch makes it again.
                let error = SystemError("give the root of \(image) to \(owner.uid):\(owner.gid)")
                umount2(directory, Int32(MNT_DETACH))
                unlink(image)
                throw error
            }
            return .mounted
        } catch {
            return .failed(error)
        }
    }

    /// Makes `image`, sparse, a copy of the empty file system of its size; returns why not
    /// when `state_dir` lacks the room.
    private func make() throws(SystemError) -> String? {
        try FileSystem.createDirectories(String(image[..<image.lastIndex(of: "/")!]), mode: 0o700)
        var space = statvfs()
        guard statvfs(stateDirectory, &space) == 0 else { throw SystemError("statvfs \(stateDirectory)") }
        let free = UInt64(space.f_bavail) * UInt64(space.f_frsize)
        let unfilled = Self.unfilledBytes(of: otherImages)
        guard free >= unfilled + size + reserve else {
            return "no room for its volume: \(size) bytes, \(unfilled) the other volumes may still fill and the daemon's "
                + "reserve of \(reserve) (state_reserve) do not fit in the \(free) bytes free in \(stateDirectory)"
        }
        let template = try self.template()
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
    private func template() throws(SystemError) -> String {
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

    private func mount() throws(SystemError) {
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
}

/// The owner a directory was given.
struct DirectoryOwner: Equatable, Sendable {
    var uid: uid_t
    var gid: gid_t
}
