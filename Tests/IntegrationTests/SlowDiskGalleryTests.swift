import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import HostProtocol
import Testing

/// A managing host's `enable` and `arrange` write `enabled.json` and `gallery.json`
/// durably; a disk that holds those writes holds their results, never the loop, and the
/// choices are in effect at once. The disk
/// is made slow as in ``SlowDiskSaveTests``, behind a defaults save so that the disk's
/// queue is seconds deep. The 2 s bounds catch a loop held by the disk; they do not
/// measure speed.
extension SlowDiskSaveTests {
    @Test func aHostsEnableAndArrangeWaitForTheDiskWithoutHoldingTheLoop() throws {
        let widget = StateDirectoryTests.widget
        var manager: TestHost?
        var other: TestHost?
        let (daemon, disk, set) = try Self.saveHeldByTheDisk(Self.managedConfig) { daemon in
            manager = try GalleryBed.connectManager(daemon)
            let connected = try daemon.connectHost()
            guard case .snapshot = try connected.pull(widget, id: 1, timeout: 10) else { throw TestSupportError("no first snapshot") }
            other = connected
            // The pull's record is written within a second: let that pass before the disk slows.
            Thread.sleep(forTimeInterval: 1.5)
        }
        defer { disk.lift() }
        defer { close(set) }
        let gallery = try #require(manager), host = try #require(other)
        let enabled = daemon.stateDirectory + "/enabled.json"
        #expect(!Self.holdsDisabled(enabled, widget))

        try gallery.send(.enable(.init(id: 1, extensionID: widget, enabled: false)))
        #expect(eventually(timeout: 10) { access(enabled + ".tmp", F_OK) == 0 }, "the write of enabled.json never began")

        #expect(try VolumeJobTests.answer(daemon, .status(NameSelection()), within: 2).ok, "status held while enabled.json is written")
        // Disabled at once, while the disk still holds the choice.
        let pulled = try host.pull(widget, id: 2, timeout: 2)
        guard case .error(let refusal) = pulled, refusal.error.contains("disabled") else {
            Issue.record("the pull while enabled.json is written: \(pulled)")
            return
        }
        #expect(try gallery.take { $0.answerID == 1 } == nil, "enabled.json was on disk before the pull was answered: the test proves nothing")
        #expect(!Self.holdsDisabled(enabled, widget), "answered after the write?")
        try gallery.send(.arrange(.init(id: 3, place: "lock_screen", widgets: [.init(extensionID: widget)])))
        let arranged = try gallery.list(id: 4, place: "lock_screen").arrangement
        #expect(arranged == [.init(extensionID: widget)], "arranged at once: \(String(describing: arranged))")
        #expect(try gallery.take { $0.answerID == 3 } == nil, "gallery.json was on disk before the list was answered")

        disk.lift()
        let answer = try gallery.receive(timeout: 30) { $0.answerID == 1 }
        guard case .enableResult(let result) = answer else {
            Issue.record("the enable's answer: \(answer)")
            return
        }
        #expect(result.success && result.error == nil, "\(result)")
        // Answered once the new content is on disk.
        #expect(Self.holdsDisabled(enabled, widget), "enabled.json after the answer")
        #expect(try gallery.receive(timeout: 30) { $0.answerID == 3 } == .arrangeResult(.init(id: 3, success: true)))
        let saved = (try? String(contentsOfFile: daemon.stateDirectory + "/gallery.json", encoding: .utf8)) ?? ""
        #expect(saved.contains("lock_screen"), "gallery.json after the answer: \(saved)")
        #expect(Self.answer(to: set).contains(#""ok":true"#))
        #expect(daemon.stop() == 0)
    }

    /// ``StateDirectoryTests/config(_:)`` with the managing host `today` of ``GalleryBed``.
    static func managedConfig(_ daemon: TestDaemon) throws -> String {
        let relay = try daemon.directory.write("relay.py", AppSideTests.relayApp)
        return try StateDirectoryTests.config(daemon) + "\n\n"
            + GalleryBed.hostAndPlaces(relay: relay, shared: daemon.sharedDirectory, hostLines: "")
    }

    /// Whether `enabled.json` holds `widget` disabled.
    static func holdsDisabled(_ path: String, _ widget: String) -> Bool {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").replacingOccurrences(of: " ", with: "").contains("\"\(widget)\":false")
    }
}
