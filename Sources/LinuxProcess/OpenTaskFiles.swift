import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// The `tasks` files of a v1 placement, opened for writing before the spawn so that the
/// child only writes to them. The spawner's thread waits for each child's set-up before the
/// next spawn, and the opens (in a new memory group the first lookup of a file makes its
/// inode) were a fifth of that set-up; the daemon's loop opens them meanwhile (bench/README.md,
/// "The launch floor, seventh pass"). The descriptors close with this value, which must
/// outlive the spawn.
public struct OpenTaskFiles: ~Copyable {
    /// What to spawn with: ``SpawnRequest/CgroupPlacement/joinOpened(taskFiles:descriptors:)``
    /// for ``SpawnRequest/CgroupPlacement/joinBeforeExec(taskFiles:)``, else `placement` as given.
    public let placement: SpawnRequest.CgroupPlacement
    private let descriptors: [Int32]

    /// Opens the files of `placement`; a file that cannot be opened fails the join, named
    /// as the child names it.
    public init(_ placement: SpawnRequest.CgroupPlacement) throws(SpawnError) {
        guard case .joinBeforeExec(let files) = placement else {
            self.placement = placement
            descriptors = []
            return
        }
        var opened: [Int32] = []
        for file in files {
            let descriptor = ext_open_control_file_at(file.directory, file.relativePath)
            guard descriptor >= 0 else {
                let error = errno
                for descriptor in opened { close(descriptor) }
                throw SpawnError(.joinCgroup, file.path, errno: error)
            }
            opened.append(descriptor)
        }
        self.placement = .joinOpened(taskFiles: files, descriptors: opened)
        descriptors = opened
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }
}
