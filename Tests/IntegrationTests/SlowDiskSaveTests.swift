import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// A save of the shared defaults that the disk holds for seconds holds no other request
/// (issue 19, item 4): the daemon is moved into a v1 blkio group whose writes reach the
/// state directory's disk once a second, an operator's `defaults set` starts a save, and
/// `status` must be answered while that save still waits for the disk. Nor does removing
/// the app whose save it is (issue 24): the removal waits for it through the loop.
@Suite(.serialized, .enabled(if: SlowDisk.isPossible, "needs the v1 blkio controller and a state directory on a block device"))
struct SlowDiskSaveTests {
    @Test func statusIsAnsweredWhileASaveWaitsForTheDisk() throws {
        let (daemon, disk, set) = try Self.saveHeldByTheDisk()
        defer { disk.lift() }
        defer { close(set) }

        #expect(try daemon.control(.status(NameSelection())).ok)
        #expect(Self.unanswered(set), "the save was over before status was answered: the test proves nothing")

        // The set itself is answered once its save is on disk.
        disk.lift()
        let line = Self.answer(to: set)
        #expect(line.contains(#""ok":true"#), "\(line)")
        #expect(daemon.stop() == 0)
    }

    @Test func removingAnAppWaitsForItsSaveWithoutHoldingTheLoop() throws {
        let (daemon, disk, set) = try Self.saveHeldByTheDisk()
        defer { disk.lift() }
        defer { close(set) }
        let removed = daemon.stateDirectory + "/removed/mine"

        try daemon.writeConfig("")
        #expect(try VolumeJobTests.answer(daemon, .reload).ok, "the reload removing mine did not answer while its save ran")
        #expect(try daemon.control(.status(NameSelection())).ok)
        #expect(Self.unanswered(set), "the save was over before the reload was answered: the test proves nothing")
        #expect(access(removed + "/removed.json", F_OK) != 0, "mine set aside while a save into its defaults ran")

        disk.lift()
        let line = Self.answer(to: set)
        #expect(line.contains(#""ok":true"#), "the save under way at the removal: \(line)")
        #expect(eventually(timeout: 30) { access(removed + "/removed.json", F_OK) == 0 }, "mine never set aside")
        let saved = try? String(contentsOfFile: removed + "/defaults/group.mine.json", encoding: .utf8)
        #expect(saved?.contains(#""k":1"#) == true, "the defaults set aside: \(saved ?? "none")")
        #expect(access(daemon.stateDirectory + "/defaults/group.mine.json", F_OK) != 0, "the defaults written back after the move")
        #expect(daemon.stop() == 0)
    }

    /// A daemon running the app `mine` (group `group.mine`), held by a slow disk, and the
    /// connection whose `defaults set` started a save that now waits for that disk.
    /// `config` (`mine` by default) must declare them; `beforeTheDisk` runs before the disk slows.
    static func saveHeldByTheDisk(
        _ config: ((TestDaemon) throws -> String)? = nil, beforeTheDisk: (TestDaemon) throws -> Void = { _ in }
    ) throws -> (TestDaemon, SlowDisk, Int32) {
        let daemon = try TestDaemon()
        try daemon.writeConfig(
            try config?(daemon)
                ?? """
                [apps.mine]
                command = ["/bin/sleep", "1000"]
                groups = ["group.mine"]
                """)
        try daemon.start()
        // What the start wrote is on disk before the disk slows: apps.json before anything is
        // served, and the ids of mine once its launch is prepared ahead.
        let state = daemon.stateDirectory
        #expect(
            eventually(timeout: 10) {
                let ids = (try? String(contentsOfFile: state + "/identities.json", encoding: .utf8)) ?? ""
                return ids.contains("app:mine") && ids.contains("group:group.mine")
                    && ((try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []).allSatisfy { !$0.hasSuffix(".tmp") }
            })
        try beforeTheDisk(daemon)
        let pid = try #require(try daemon.control(.pid(PidRequest())).pid)
        let disk = try SlowDisk(process: pid, writingTo: daemon.stateDirectory)
        let set: Int32
        do {
            set = try connectUnixStream(to: daemon.controlSocket)
        } catch {
            disk.lift()
            throw error
        }
        let request = ControlCodec.line(ControlRequest.defaults(DefaultsRequest(group: "group.mine", operation: .set, key: "k", value: 1)))
        #expect(request.withUnsafeBytes { send(set, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == request.count)
        // The save has begun once its temporary file exists; then it waits for the disk.
        #expect(eventually(timeout: 10) { access(daemon.stateDirectory + "/defaults/group.mine.json.tmp", F_OK) == 0 })
        return (daemon, disk, set)
    }

    /// Whether nothing was answered on `connection` yet.
    static func unanswered(_ connection: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(connection, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == -1 && errno == EAGAIN
    }

    /// The answer on `connection` (waited for up to 30 s).
    static func answer(to connection: Int32) -> String {
        var ready = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 30_000) == 1)
        var answer = [UInt8](repeating: 0, count: 4096)
        let count = recv(connection, &answer, answer.count, 0)
        return String(decoding: answer.prefix(max(0, count)), as: UTF8.self)
    }
}

/// A v1 blkio group under this process's own that lets its members write to one disk once
/// a second (`blkio.throttle.write_iops_device`): a disk that is slow on demand.
struct SlowDisk {
    private let group: String
    private let parent: String
    private let device: String

    static let hierarchy = "/sys/fs/cgroup/blkio"

    static var isPossible: Bool {
        access(hierarchy + "/blkio.throttle.write_iops_device", F_OK) == 0 && (try? wholeDisk(of: "/tmp")) != nil
    }

    /// Moves `process` (all its threads) into the group, whose writes to the disk holding
    /// `path` are then throttled.
    init(process: Int32, writingTo path: String) throws {
        device = try Self.wholeDisk(of: path)
        let own =
            try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8).split(separator: "\n")
            .first { $0.split(separator: ":", maxSplits: 2).dropFirst().first?.split(separator: ",").contains("blkio") == true }
            .map { String($0.split(separator: ":", maxSplits: 2)[2]) } ?? "/"
        parent = Self.hierarchy + (own == "/" ? "" : own)
        group = parent + "/extensiond-slow-disk-\(getpid())-\(process)"
        try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: false)
        try "\(device) 1".write(toFile: group + "/blkio.throttle.write_iops_device", atomically: false, encoding: .utf8)
        try "\(process)".write(toFile: group + "/cgroup.procs", atomically: false, encoding: .utf8)
    }

    /// Lets the queued writes go, moves the members back and removes the group (again: no-op).
    func lift() {
        guard access(group, F_OK) == 0 else { return }
        try? "\(device) 0".write(toFile: group + "/blkio.throttle.write_iops_device", atomically: false, encoding: .utf8)
        let members = (try? String(contentsOfFile: group + "/cgroup.procs", encoding: .utf8)) ?? ""
        for member in members.split(separator: "\n") {
            try? String(member).write(toFile: parent + "/cgroup.procs", atomically: false, encoding: .utf8)
        }
        rmdir(group)
    }

    /// `major:minor` of the whole disk that holds `path` (a partition's disk).
    static func wholeDisk(of path: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw TestSupportError("stat \(path)") }
        let dev = UInt64(info.st_dev)
        let major = (dev >> 8) & 0xfff | (dev >> 32) & ~0xfff
        let minor = dev & 0xff | (dev >> 12) & ~0xff
        let block = "/sys/dev/block/\(major):\(minor)"
        guard major != 0, access(block, F_OK) == 0 else { throw TestSupportError("\(path) is on no block device") }
        let disk = access(block + "/partition", F_OK) == 0 ? block + "/.." : block
        return try String(contentsOfFile: disk + "/dev", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
