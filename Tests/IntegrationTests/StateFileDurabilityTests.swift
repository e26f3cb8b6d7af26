import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// `apps.json` and `identities.json`, written beside the loop (``SlowDiskReloadTests``):
/// a write that fails is an event and is kept and tried again, and a daemon killed while
/// one waits for the disk restarts on a whole file with no uid handed out twice.
@Suite(.serialized) struct StateFileDurabilityTests {
    static func config(groups: [String], other: Bool = false) -> String {
        """
        [apps.mine]
        command = ["/bin/sleep", "1000"]
        groups = [\(groups.map { "\"\($0)\"" }.joined(separator: ", "))]
        """
            + (other ? "\n\n[apps.other]\ncommand = [\"/bin/sleep\", \"1000\"]\ngroups = [\"group.other\"]\n" : "")
    }

    static func content(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// A daemon whose state directory is a full tmpfs, reloaded with a second group: the
    /// reload is answered, and `apps.json` (its path returned) still holds one group.
    static func reloadOnAFullDisk() throws -> (TestDaemon, Tmpfs, String) {
        let daemon = try TestDaemon()
        let disk = try Tmpfs(at: daemon.stateDirectory, size: 4 << 20)
        do {
            try daemon.writeConfig(Self.config(groups: ["group.mine"]))
            try daemon.start()
            let apps = daemon.stateDirectory + "/apps.json"
            #expect(eventually(timeout: 10) { Self.content(apps).contains("group.mine") })
            try disk.fill()
            try daemon.writeConfig(Self.config(groups: ["group.mine", "group.second"]))
            let reload = try VolumeJobTests.answer(daemon, .reload, within: 10)
            #expect(reload.ok && (reload.message ?? "").contains("not on disk yet"), "\(reload)")
            return (daemon, disk, apps)
        } catch {
            disk.unmount()
            throw error
        }
    }

    @Test func aFullDiskIsAnEventAndAppsJSONIsWrittenOnceThereIsRoom() throws {
        let (daemon, disk, apps) = try Self.reloadOnAFullDisk()
        defer { disk.unmount() }
        #expect(try daemon.control(.status(NameSelection())).ok)
        let failures = try (daemon.control(.events(LogRequest(lines: 200))).events ?? []).filter {
            $0.kind == .error && $0.reason == "storage" && $0.message.contains(apps)
        }
        #expect(failures.count == 1 && failures[0].message.contains("No space left on device (errno \(ENOSPC))"), "\(failures)")
        #expect(!Self.content(apps).contains("group.second"))

        // Kept in memory and tried again: written once there is room, and said so.
        disk.free()
        #expect(eventually(timeout: 10) { Self.content(apps).contains("group.second") }, "apps.json: \(Self.content(apps))")
        let recovered = try (daemon.control(.events(LogRequest(lines: 200))).events ?? []).filter {
            $0.kind == .cleanup && $0.reason == "storage" && $0.message.contains(apps)
        }
        #expect(recovered.count == 1, "\(recovered)")
        #expect(daemon.stop() == 0)
    }

    /// The stop does not wait for the next try (a second away) nor leave without it.
    @Test func aCleanStopWritesAppsJSONTheDiskRefusedBefore() throws {
        let (daemon, disk, apps) = try Self.reloadOnAFullDisk()
        defer { disk.unmount() }
        disk.free()
        #expect(daemon.stop() == 0)
        #expect(Self.content(apps).contains("group.second"), "apps.json: \(Self.content(apps))")
    }

    @Test func aDaemonKilledWhileAppsJSONWaitsForTheDiskRestartsOnAWholeFile() throws {
        guard SlowDisk.isPossible else { return }
        var before: [String: UInt32] = [:]
        // A defaults save fills the disk's queue, so that the writes below wait for seconds.
        let (daemon, disk, set) = try SlowDiskSaveTests.saveHeldByTheDisk { _ in
            Self.config(groups: ["group.mine"])
        } beforeTheDisk: {
            let identities = $0.stateDirectory + "/identities.json"
            #expect(eventually(timeout: 10) { Self.content(identities).contains("app:mine") })
            before = try JSONDecoder().decode([String: UInt32].self, from: Data(Self.content(identities).utf8))
        }
        defer { disk.lift() }
        defer { close(set) }
        let apps = daemon.stateDirectory + "/apps.json", identities = daemon.stateDirectory + "/identities.json"

        // A new owner and a new app: apps.json and identities.json are queued together.
        try daemon.writeConfig(Self.config(groups: ["group.mine", "group.second"], other: true))
        let reload = try connectUnixStream(to: daemon.controlSocket)
        defer { close(reload) }
        let request = ControlCodec.line(ControlRequest.reload)
        #expect(request.withUnsafeBytes { send(reload, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == request.count)
        #expect(eventually(timeout: 10) { access(apps + ".tmp", F_OK) == 0 }, "the write of apps.json never began")
        // The new app's launch waits for its uid to be on disk.
        let other = try daemon.control(.status(NameSelection(["other"]))).status?.first
        let written = Self.content(identities).contains("app:other")
        #expect(written || other?.pid == nil, "other runs with a uid not on disk: \(String(describing: other))")
        // The kill takes the daemon when its write returns from the disk: before the rename.
        daemon.process?.signal(SIGKILL)
        disk.lift()
        #expect(daemon.process?.wait(timeout: 30) != nil)

        let restarted = TestDaemon(restarting: daemon)
        try restarted.start()
        // Old or new, never torn; the daemon removed what the write left.
        let owners = try JSONDecoder().decode([String: [String: [String]]].self, from: Data(Self.content(apps).utf8))
        #expect(owners["mine"]?["groups"]?.contains("group.mine") == true, "\(owners)")
        #expect(eventually(timeout: 10) { Self.content(apps).contains("group.second") && access(apps + ".tmp", F_OK) != 0 })
        #expect(eventually(timeout: 10) { Self.content(identities).contains("app:other") })
        let after = try JSONDecoder().decode([String: UInt32].self, from: Data(Self.content(identities).utf8))
        for (key, id) in before { #expect(after[key] == id, "\(key) changed from \(id): \(after)") }
        #expect(Set(after.values).count == after.count, "a uid or gid handed out twice: \(after)")
        #expect(restarted.stop() == 0)
    }

    @Test func aDaemonKilledAfterARemovedAppIsTaggedKeepsItsDataAtTheNextStart() throws {
        guard SlowDisk.isPossible else { return }
        let daemon = try TestDaemon()
        try daemon.writeConfig(Self.config(groups: ["group.mine"], other: true))
        try daemon.start()
        let state = daemon.stateDirectory
        #expect(
            eventually(timeout: 10) {
                let ids = Self.content(state + "/identities.json")
                return ids.contains("group:group.other") && ids.contains("app:other") && access(state + "/identities.json.tmp", F_OK) != 0
            })
        // The container is made ahead of other's first launch, and is a volume (`disk_max`)
        // where one can be mounted: kept is written once it is.
        let container = state + "/groups/group.other"
        _ = eventually(timeout: 30) { Self.content("/proc/self/mountinfo").contains(" \(container) ") }
        #expect(eventually(timeout: 10) { (try? Data("other's".utf8).write(to: URL(fileURLWithPath: state + "/groups/group.other/kept"))) != nil })
        let pid = try #require(try daemon.control(.pid(PidRequest())).pid)
        let disk = try SlowDisk(process: pid, writingTo: state)
        defer { disk.lift() }
        let tag = state + "/removed/other/removed.json", kept = state + "/removed/other/groups/group.other/kept"

        // other removed: moved and tagged, then its ids set aside and apps.json rewritten,
        // each behind the slow disk. Killed once the tag is on disk.
        try daemon.writeConfig(Self.config(groups: ["group.mine"]))
        let reload = try connectUnixStream(to: daemon.controlSocket)
        defer { close(reload) }
        let request = ControlCodec.line(ControlRequest.reload)
        #expect(request.withUnsafeBytes { send(reload, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == request.count)
        // Generous: an fsync on a loaded machine also waits for others' data in the journal.
        #expect(eventually(timeout: 60) { access(tag, F_OK) == 0 }, "other was never tagged")
        #expect(Self.content(state + "/apps.json").contains("other"), "apps.json was rewritten first: the test proves nothing")
        daemon.process?.signal(SIGKILL)
        disk.lift()
        #expect(daemon.process?.wait(timeout: 30) != nil)

        // The next start finishes that removal: the data stays set aside, not purged.
        let restarted = TestDaemon(restarting: daemon)
        try restarted.start()
        let told = (try? restarted.control(.events(LogRequest(lines: 200))).events ?? []) ?? []
        let below = FileManager.default.enumerator(atPath: state)?.compactMap { $0 as? String }.filter { $0.contains("other") } ?? []
        // In the container's volume (its image), or in the directory where none was mounted.
        let image = (try? Data(contentsOf: URL(fileURLWithPath: state + "/removed/other/volumes/groups/group.other.img"))) ?? Data()
        let keptInImage = image.range(of: Data("other's".utf8)) != nil
        #expect(Self.content(kept) == "other's" || keptInImage, "lost at the restart: \(told.filter { $0.message.contains("other") }.map(\.message)) \(below)")
        #expect(!Self.content(state + "/apps.json").contains("other"))
        let ids = try JSONDecoder().decode([String: UInt32].self, from: Data(Self.content(state + "/identities.json").utf8))
        #expect(ids["app:other"] == nil && ids["removed:app:other"] != nil, "\(ids)")
        #expect(restarted.stop() == 0)
    }
}
