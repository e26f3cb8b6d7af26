import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// The jobs that make `disk_max` volumes beside the loop, as a removal and a failure see
/// them (docs/ARCHITECTURE.md, "Volumes ahead of demand"): removing an app waits neither for
/// other apps' volumes nor on the loop, an app configured again before its job ends keeps
/// its data, and a volume that could not be made ahead is reported then (once) and at the
/// launch, which does not make it again.
@Suite(.serialized) struct VolumeJobTests {
    /// Bytes of the volumes whose template ``slowTemplate(of:bytes:)`` makes a FIFO.
    static let slowBytes = 5 << 20

    /// Makes the template of `bytes`-byte volumes a FIFO: the job that copies it waits in
    /// open(2) until ``release(_:unless:)`` opens its other end, a volume job exactly as slow
    /// as the test wants (no disk here is slow on demand). Returns its path.
    static func slowTemplate(of daemon: TestDaemon, bytes: Int = slowBytes) throws -> String {
        let volumes = daemon.stateDirectory + "/volumes"
        try FileManager.default.createDirectory(atPath: volumes, withIntermediateDirectories: true)
        let template = volumes + "/empty-\(bytes).img"
        guard mkfifo(template, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return template
    }

    /// Lets the job blocked on `template` go on (the copy reads nothing; its mount fails);
    /// waits up to 60 s for it to reach the FIFO, or for `done` to say it never will.
    static func release(_ template: String, unless done: () -> Bool = { false }) {
        _ = eventually(timeout: 60) {
            let fd = open(template, O_WRONLY | O_NONBLOCK)
            guard fd >= 0 else { return done() }
            close(fd)
            return true
        }
    }

    /// The answer to `request`, which must come within `seconds` (generous: the loop must
    /// not wait for a volume job, which here never ends until the test lets it).
    static func answer(_ daemon: TestDaemon, _ request: ControlRequest, within seconds: Double = 15) throws -> ControlResponse {
        let reply = try daemon.exchange(ControlCodec.line(request), timeout: seconds)
        let line = reply.prefix { $0 != UInt8(ascii: "\n") }
        guard line.count < reply.count else { throw TestSupportError("no answer to \(request.command) within \(seconds) s") }
        return try ControlCodec.decode(ControlResponse.self, from: line)
    }

    static func slowApp(_ widget: String) -> String {
        """


        [apps.slow]
        command = ["/bin/sleep", "1000"]

        [extensions."slow.0"]
        app = "slow"
        point = "widget"
        command = \(widget)
        disk_max = "5M"
        """
    }

    @Test func removingAnAppWaitsNeitherForAnotherAppsVolumeNorOnTheLoop() throws {
        let daemon = try TestDaemon()
        let template = try Self.slowTemplate(of: daemon)
        var released = false
        defer { if !released { Self.release(template) } }
        let widget = try ScriptedExtension.command(.answer, in: daemon.directory)
        try daemon.writeConfig(VolumeAheadTests.config(widget, count: 2) + Self.slowApp(widget))
        try daemon.start()

        // `slow.0`'s volume waits on the FIFO; v's are made before it or queued behind it.
        try daemon.writeConfig(Self.slowApp(widget))
        #expect(try Self.answer(daemon, .reload).ok, "the reload removing v did not answer while slow.0's volume was made")
        let status = try Self.answer(daemon, .status(NameSelection(["slow.0"]))).status ?? []
        #expect(status.map(\.name) == ["slow.0"])
        let state = daemon.stateDirectory
        // At once, or when a job of v's own under way ends: before slow.0's does.
        #expect(
            eventually(timeout: 30) { FileManager.default.fileExists(atPath: state + "/removed/v/removed.json") },
            "v not set aside while slow.0's volume was made")
        #expect(DiskQuotaTests.mounts(below: state).isEmpty, "volumes of the removed app left mounted")

        Self.release(template)
        released = true
        #expect(daemon.stop() == 0)
        VolumeAheadTests.expectNothingLeft(daemon)
    }

    @Test func anAppRemovedWhileItsOwnVolumeIsMadeIsSetAsideWhenTheJobEnds() throws {
        let daemon = try TestDaemon()
        let template = try Self.slowTemplate(of: daemon)
        let state = daemon.stateDirectory
        let tag = state + "/removed/slow/removed.json"
        defer { Self.release(template) { FileManager.default.fileExists(atPath: tag) } }
        try daemon.writeConfig(Self.slowApp(try ScriptedExtension.command(.answer, in: daemon.directory)))
        try daemon.start()

        try daemon.writeConfig("")
        #expect(try Self.answer(daemon, .reload).ok, "the reload removing slow did not answer while its volume was made")
        #expect(try Self.answer(daemon, .status(NameSelection([]))).status?.isEmpty == true)

        Self.release(template) { FileManager.default.fileExists(atPath: tag) }
        #expect(eventually(timeout: 30) { FileManager.default.fileExists(atPath: tag) }, "slow never set aside")
        #expect(!FileManager.default.fileExists(atPath: state + "/data/slow.0"), "slow.0's data directory left in place")
        // apps.json is written after the tag.
        #expect(
            eventually(timeout: 5) { (try? String(contentsOfFile: state + "/apps.json", encoding: .utf8))?.contains("slow") == false },
            "apps.json still names the removed app")
        #expect(daemon.stop() == 0)
        VolumeAheadTests.expectNothingLeft(daemon)
    }

    @Test func anAppRemovedAndConfiguredAgainWhileItsVolumeIsMadeKeepsItsData() throws {
        let daemon = try TestDaemon()
        let template = try Self.slowTemplate(of: daemon)
        let state = daemon.stateDirectory
        var released = false
        defer { if !released { Self.release(template) } }
        let config = Self.slowApp(try ScriptedExtension.command(.answer, in: daemon.directory))
        try daemon.writeConfig(config)
        try daemon.start()
        let data = state + "/data/slow.0"
        #expect(eventually(timeout: 30) { FileManager.default.fileExists(atPath: data) }, "slow.0's data directory never made")
        var before = stat()
        #expect(stat(data, &before) == 0)
        // Written beside the volume's job, which keeps waiting on the FIFO.
        #expect(FileManager.default.createFile(atPath: data + "/kept", contents: Data("mine".utf8)))

        try daemon.writeConfig("")
        #expect(try Self.answer(daemon, .reload).ok)
        try daemon.writeConfig(config)
        #expect(try Self.answer(daemon, .reload).ok)

        Self.release(template)
        released = true
        let told = try eventually(timeout: 30) {
            try (daemon.control(.events(LogRequest(lines: 200))).events ?? []).contains {
                $0.message.contains("removed app slow") || $0.message.contains("app slow in place")
            }
        }
        #expect(told, "the removal of slow never ended")
        #expect(!FileManager.default.fileExists(atPath: state + "/removed/slow"), "slow's data set aside though it is configured")
        #expect((try? String(contentsOfFile: data + "/kept", encoding: .utf8)) == "mine", "slow.0's data not in place")
        var after = stat()
        #expect(stat(data, &after) == 0 && after.st_uid == before.st_uid, "slow.0's data directory changed owner")
        #expect(daemon.stop() == 0)
        VolumeAheadTests.expectNothingLeft(daemon)
    }

    @Test func aVolumeThatCouldNotBeMadeAheadIsReportedOnceThenAndAtTheLaunch() throws {
        let daemon = try TestDaemon()
        // A template of zeros (no file system): each volume's mount fails.
        let template = try Self.slowTemplate(of: daemon, bytes: 6 << 20)
        unlink(template)
        let made = creat(template, 0o600)
        #expect(made >= 0 && ftruncate(made, 6 << 20) == 0)
        close(made)
        try daemon.writeConfig(
            """
            [apps.v]
            command = ["/bin/sleep", "1000"]

            [extensions."v.0"]
            app = "v"
            point = "widget"
            command = \(try ScriptedExtension.command(.answer, in: daemon.directory))
            disk_max = "6M"
            """)
        try daemon.start()

        func errors() throws -> [EventRecord] {
            (try daemon.control(.events(LogRequest(lines: 200))).events ?? []).filter { $0.kind == .error && $0.name == "v.0" }
        }
        let reported = try eventually(timeout: 60) { try errors().contains { $0.message.contains("ahead") && $0.message.contains("mount") } }
        #expect(reported, "no error event for v.0's volume before its launch")
        // Kept for the launch, and not told again at each reload.
        #expect(try daemon.control(.reload).ok)
        let told = try errors().filter { $0.message.contains("ahead") }
        #expect(told.count == 1, "\(told)")
        #expect(try daemon.control(.status(NameSelection(["v.0"]))).status?.first?.pid == nil)

        _ = try daemon.control(.start(NameSelection(["v.0"])))
        var shown: String?
        _ = try eventually(timeout: 30) {
            shown = try daemon.control(.status(NameSelection(["v.0"]))).status?.first?.error
            return shown?.contains("mount") == true
        }
        #expect(shown?.contains("data directory of v.0: mount") == true, "v.0's error in status: \(shown ?? "none")")
        let launchErrors = try errors().filter { !$0.message.contains("ahead") }
        #expect(launchErrors.contains { $0.message.contains("data directory of v.0: mount") }, "\(launchErrors)")
        #expect(daemon.stop() == 0)
        VolumeAheadTests.expectNothingLeft(daemon)
    }
}
