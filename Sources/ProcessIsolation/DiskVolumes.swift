import CLinux
import DaemonSupport
import EventLoop
import Glibc
import Sockets
import Synchronization

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
/// mkfs.ext4 runs once per volume size (about 50 ms, bounded by ``VolumeImage/mkfsTimeout``),
/// making an empty template `<state_dir>/volumes/empty-<bytes>.img`; a volume is a sparse
/// copy of its template (its 300 KiB of metadata: well under a millisecond) whose root
/// directory is then given to its owner. Volumes of one size share the template's UUID,
/// which ext4 does not mind.
///
/// Making and mounting (``VolumeImage``: the copy, a loop device, the mount; milliseconds
/// each) runs beside the loop, one volume at a time: ahead of demand after a config is
/// applied, and for a launch that finds its volume missing, which waits for it through the
/// loop. Mounts stay for the daemon's life (a restarted daemon finds and keeps them) and
/// are lazily unmounted at a clean stop; the loop devices detach themselves then.
package final class DiskVolumes {
    private let stateDirectory: String
    /// Directories mounted (or found mounted), with their image.
    private var mounted: [String: String] = [:]
    /// Why no volume can be made here, once known: ``bound(_:name:size:owner:reserve:ahead:whenReady:)`` then returns it.
    private(set) var unavailable: String?
    /// Mounts made since start, by directory: a change says a directory was mounted afresh.
    private var mountCounts: [String: Int] = [:]
    private let mkfs: String?
    /// Where volumes are made and mounted; `nil` (no thread could be had): on the loop.
    private let work: BlockingWorker?
    /// Volumes being made and mounted beside the loop, by directory.
    private var preparing: [String: Preparation] = [:]
    /// How the last preparation of a directory ended when it did not mount, kept for the
    /// next launch, which reports it (and the one after tries again).
    private var failures: [String: KeptFailure] = [:]
    /// Set when the daemon stops: no volume is made after.
    private var stopping = false

    /// Where e2fsprogs installs it: sbin, which a daemon's search path may lack.
    static let mkfsCandidates = ["/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4", "/usr/bin/mkfs.ext4"]

    init(stateDirectory: String, runsAsRoot: Bool, work: BlockingWorker?) {
        self.stateDirectory = stateDirectory
        self.work = work
        mkfs = Self.mkfsCandidates.first { access($0, X_OK) == 0 }
        if !runsAsRoot {
            unavailable = "the daemon is not root (mounting a file system needs it)"
        } else if access("/dev/loop-control", R_OK | W_OK) != 0 {
            unavailable = "there is no /dev/loop-control"
        } else if mkfs == nil {
            unavailable = "mkfs.ext4 is not installed (e2fsprogs)"
        }
    }

    /// Whether `directory` (made before, empty or already the volume) is bounded by the
    /// volume `name` of `size` bytes. When it is not mounted yet, makes the volume (its image
    /// first if there is none) and mounts it beside the loop, and calls `whenReady` on the
    /// loop once that is done: the answer then is `.preparing`. `.unbounded` says why it
    /// cannot be: volumes are unavailable, `directory` holds files from before it was
    /// bounded, or `state_dir` had no room for the volume (a later launch tries again).
    /// Throws how the last attempt failed: once, for a launch (the next call tries again);
    /// `ahead` of one, the failure is kept for the launch, which reports it instead of
    /// making the volume again, and thrown once (`.failedBefore` after).
    func bound(
        _ directory: String, name: String, size: UInt64, owner: DirectoryOwner?, reserve: UInt64, ahead: Bool = false,
        whenReady: (() -> Void)? = nil
    ) throws(SystemError) -> Readiness {
        if let unavailable { return .unbounded(unavailable) }
        // A stopping daemon launches nothing and makes no volume.
        if stopping { return .preparing }
        if preparing[directory] != nil {
            if let whenReady { preparing[directory]?.waiting.append(whenReady) }
            return .preparing
        }
        let image = stateDirectory + "/volumes/" + name + ".img"
        // Checked each time: an operator may have unmounted it.
        if Self.isMountPoint(directory) {
            mounted[directory] = image
            return .mounted
        }
        let kept = ahead ? failures[directory] : failures.removeValue(forKey: directory)
        if ahead, let kept {
            if kept.toldAhead { return .failedBefore }
            failures[directory]?.toldAhead = true
        }
        switch kept?.outcome {
        case .refused(let reason): return .unbounded(reason)
        case .failed(let error): throw error
        case .mounted, .cancelled, nil: break
        }
        let makesImage = access(image, F_OK) != 0
        if makesImage, !Self.isUnused(directory) {
            return .unbounded("\(directory) holds files from before disk_max (move them out to have it bounded)")
        }
        let others = Set(mounted.values).union(preparing.values.map(\.image))
        let job = VolumeImage(
            directory: directory, image: image, stateDirectory: stateDirectory, size: size, owner: owner, reserve: reserve,
            otherImages: others.sorted(), mkfs: mkfs, makesImage: makesImage)
        let ticket = JobTicket()
        guard let work else {
            preparing[directory] = Preparation(image: image, ticket: ticket, waiting: [])
            finish(job, ticket, job.prepare())
            return try bound(directory, name: name, size: size, owner: owner, reserve: reserve)
        }
        preparing[directory] = Preparation(image: image, ticket: ticket, waiting: whenReady.map { [$0] } ?? [])
        work.run({ ticket.begin() ? job.prepare() : .cancelled }) { [unowned self] outcome in self.finish(job, ticket, outcome) }
        return .preparing
    }

    /// How many times the daemon mounted `directory`.
    func mountCount(of directory: String) -> Int { mountCounts[directory, default: 0] }

    /// What ``bound(_:name:size:owner:reserve:ahead:whenReady:)`` found.
    enum Readiness: Equatable {
        case mounted
        case preparing
        case unbounded(String)
        /// Ahead of a launch: the last attempt failed, was thrown once, and is kept for the launch.
        case failedBefore
    }

    /// How the last preparation of a directory ended when it did not mount, and whether a
    /// call ahead of the launch was told.
    private struct KeptFailure {
        let outcome: VolumeImage.Outcome
        var toldAhead = false
    }

    /// A volume being made: its image, its job's ticket, what waits for it, and what waits
    /// for its job to end (``cancelJobs(on:then:)``).
    private struct Preparation {
        var image: String
        let ticket: JobTicket
        var waiting: [() -> Void]
        var ended: [() -> Void] = []
    }

    private func finish(_ job: VolumeImage, _ ticket: JobTicket, _ outcome: VolumeImage.Outcome) {
        // A job cancelled by cancelJobs left no entry, or a later job's.
        guard let preparation = preparing[job.directory], preparation.ticket === ticket else { return }
        preparing[job.directory] = nil
        switch outcome {
        case .mounted:
            mounted[job.directory] = job.image
            mountCounts[job.directory, default: 0] += 1
        case .cancelled: return
        case .refused, .failed: failures[job.directory] = KeptFailure(outcome: outcome)
        }
        for body in preparation.ended + preparation.waiting { body() }
    }

    /// Calls `body` on the loop once no job makes a volume on one of `directories` (before
    /// they are moved): jobs not begun are cancelled, and what waits for them is dropped
    /// (their processes were removed); the one that runs, if any, is waited for through
    /// the loop. Other directories' jobs are neither waited for nor cancelled.
    func cancelJobs(on directories: [String], then body: @escaping () -> Void) {
        var running: [String] = []
        for directory in directories {
            guard let preparation = preparing[directory] else { continue }
            if preparation.ticket.cancel() {
                preparing[directory] = nil
            } else {
                running.append(directory)
            }
        }
        var left = running.count
        guard left > 0 else { return body() }
        for directory in running {
            preparing[directory]?.ended.append {
                left -= 1
                if left == 0 { body() }
            }
        }
    }

    /// Lazily unmounts the volume on `directory`, if any, so that the directory and its
    /// image can be moved (a removed app's data is set aside).
    func release(_ directory: String) {
        failures[directory] = nil
        if mounted.removeValue(forKey: directory) != nil || Self.isMountPoint(directory) {
            umount2(directory, Int32(MNT_DETACH))
        }
    }

    /// Lazily unmounts every volume (at a clean stop), once the one being mounted is; those
    /// not begun are not.
    package func unmountAll() {
        stopping = true
        for preparation in preparing.values { _ = preparation.ticket.cancel() }
        work?.finish()
        for directory in mounted.keys.sorted() { umount2(directory, Int32(MNT_DETACH)) }
        mounted = [:]
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

/// Whether a volume job may begin, decided once between the loop (which may cancel a job
/// not begun) and the worker (which begins it).
private final class JobTicket: Sendable {
    private static let waiting: UInt8 = 0
    private let state = Atomic<UInt8>(waiting)

    /// On the worker: whether the job begins (it was not cancelled).
    func begin() -> Bool {
        state.compareExchange(expected: Self.waiting, desired: 1, ordering: .acquiringAndReleasing).exchanged
    }

    /// On the loop: whether the job was cancelled before it began.
    func cancel() -> Bool {
        state.compareExchange(expected: Self.waiting, desired: 2, ordering: .acquiringAndReleasing).exchanged
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
