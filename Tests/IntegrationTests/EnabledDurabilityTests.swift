import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import Testing

/// `enabled.json`, written beside the loop: a `disable` the disk refuses is in effect at
/// once, answered as not on disk yet, and written once there is room.
extension StateFileDurabilityTests {
    @Test func aDisableOnAFullDiskIsInEffectAndWrittenOnceThereIsRoom() throws {
        let daemon = try TestDaemon()
        let disk = try Tmpfs(at: daemon.stateDirectory, size: 4 << 20)
        defer { disk.unmount() }
        let widget = StateDirectoryTests.widget
        try daemon.writeConfig(try StateDirectoryTests.config(daemon))
        try daemon.start()
        let enabled = daemon.stateDirectory + "/enabled.json"

        try disk.fill()
        let disable = try VolumeJobTests.answer(daemon, .disable(NameSelection([widget])), within: 10)
        #expect(disable.ok && (disable.message ?? "").contains("not on disk yet"), "\(disable)")
        let pulled = try daemon.control(.pull(PullRequest(name: widget)))
        #expect(!pulled.ok && (pulled.error ?? "").contains("disabled"), "disabled at once: \(pulled)")
        let failures = try (daemon.control(.events(LogRequest(lines: 200))).events ?? []).filter {
            $0.kind == .error && $0.reason == "storage" && $0.message.contains(enabled)
        }
        #expect(failures.count == 1 && failures[0].message.contains("errno \(ENOSPC)"), "\(failures)")
        #expect(!SlowDiskSaveTests.holdsDisabled(enabled, widget))

        // Kept in memory and tried again: written once there is room, and said so.
        disk.free()
        #expect(eventually(timeout: 10) { SlowDiskSaveTests.holdsDisabled(enabled, widget) }, "enabled.json: \(Self.content(enabled))")
        let recovered = try (daemon.control(.events(LogRequest(lines: 200))).events ?? []).filter {
            $0.kind == .cleanup && $0.reason == "storage" && $0.message.contains(enabled)
        }
        #expect(recovered.count == 1, "\(recovered)")
        // The next answer promising the choice is plain again.
        let enable = try daemon.control(.enable(NameSelection([widget])))
        #expect(enable.ok && enable.message == "enabled \(widget)", "\(enable)")
        #expect(daemon.stop() == 0)
    }
}
