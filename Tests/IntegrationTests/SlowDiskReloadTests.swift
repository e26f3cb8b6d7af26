import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import HostProtocol
import Testing

/// A reload that changes what an app owns writes `apps.json` durably; a disk that holds
/// that write holds the reload's answer, never the loop (the lead's note 6). The disk is
/// made slow as in ``SlowDiskSaveTests``, behind a defaults save so that the disk's queue
/// is seconds deep. The 2 s bounds catch a loop held by the disk (it was held for over
/// 15 s); they do not measure speed.
extension SlowDiskSaveTests {
    @Test func aReloadWaitsForAppsJSONWithoutHoldingTheLoop() throws {
        let widget = StateDirectoryTests.widget
        var host: TestHost?
        let (daemon, disk, set) = try Self.saveHeldByTheDisk(StateDirectoryTests.config) { daemon in
            let connected = try daemon.connectHost()
            guard case .snapshot = try connected.pull(widget, id: 1, timeout: 10) else { throw TestSupportError("no first snapshot") }
            host = connected
            // The pull's record is written within a second: let that pass before the disk slows.
            Thread.sleep(forTimeInterval: 1.5)
        }
        defer { disk.lift() }
        defer { close(set) }
        let apps = daemon.stateDirectory + "/apps.json"
        #expect(!((try? String(contentsOfFile: apps, encoding: .utf8)) ?? "").contains("group.second"))

        // mine now owns a second group: apps.json changes (and nothing else the reload writes).
        try daemon.writeConfig(
            try StateDirectoryTests.config(daemon).replacingOccurrences(of: #"["group.mine"]"#, with: #"["group.mine", "group.second"]"#))
        let reload = try connectUnixStream(to: daemon.controlSocket)
        defer { close(reload) }
        let request = ControlCodec.line(ControlRequest.reload)
        #expect(request.withUnsafeBytes { send(reload, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == request.count)
        #expect(eventually(timeout: 10) { access(apps + ".tmp", F_OK) == 0 }, "the write of apps.json never began")

        #expect(try VolumeJobTests.answer(daemon, .status(NameSelection()), within: 2).ok, "status held while apps.json is written")
        let pulled = try #require(host).pull(widget, id: 2, timeout: 2)
        guard case .snapshot = pulled else {
            Issue.record("the pull while apps.json is written: \(pulled)")
            return
        }
        #expect(Self.unanswered(reload), "apps.json was on disk before status and the pull were answered: the test proves nothing")
        #expect(!((try? String(contentsOfFile: apps, encoding: .utf8)) ?? "").contains("group.second"), "answered after the write?")

        disk.lift()
        let answer = Self.answer(to: reload)
        #expect(answer.contains(#""ok":true"#) && !answer.contains("not on disk"), "\(answer)")
        // Answered once the new content is on disk.
        #expect(((try? String(contentsOfFile: apps, encoding: .utf8)) ?? "").contains("group.second"), "apps.json after the answer")
        #expect(Self.answer(to: set).contains(#""ok":true"#))
        #expect(daemon.stop() == 0)
    }
}
