import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import HostProtocol
import Testing

/// `gallery.json`, written beside the loop: an `arrange` the disk refuses is in effect at
/// once, answered as done but not on disk yet, and written once there is room.
extension StateFileDurabilityTests {
    @Test func anArrangeOnAFullDiskIsInEffectAndWrittenOnceThereIsRoom() throws {
        let daemon = try TestDaemon()
        let disk = try Tmpfs(at: daemon.stateDirectory, size: 4 << 20)
        defer { disk.unmount() }
        let widget = StateDirectoryTests.widget
        try daemon.writeConfig(try SlowDiskSaveTests.managedConfig(daemon))
        try daemon.start()
        let manager = try GalleryBed.connectManager(daemon)
        let gallery = daemon.stateDirectory + "/gallery.json"

        try disk.fill()
        try manager.send(.arrange(.init(id: 1, place: "lock_screen", widgets: [.init(extensionID: widget)])))
        let answer = try manager.receive(timeout: 10) { $0.answerID == 1 }
        guard case .arrangeResult(let result) = answer else {
            Issue.record("the arrange's answer: \(answer)")
            return
        }
        #expect(result.success && (result.error ?? "").contains("not on disk yet"), "\(result)")
        let arranged = try manager.list(id: 2, place: "lock_screen").arrangement
        #expect(arranged == [.init(extensionID: widget)], "in effect at once: \(String(describing: arranged))")
        let failures = try (daemon.control(.events(LogRequest(lines: 200))).events ?? []).filter {
            $0.kind == .error && $0.reason == "storage" && $0.message.contains(gallery)
        }
        #expect(failures.count == 1 && failures[0].message.contains("errno \(ENOSPC)"), "\(failures)")
        #expect(!Self.content(gallery).contains("lock_screen"))

        // Kept in memory and tried again: written once there is room, and said so.
        disk.free()
        #expect(eventually(timeout: 10) { Self.content(gallery).contains("lock_screen") }, "gallery.json: \(Self.content(gallery))")
        let recovered = try (daemon.control(.events(LogRequest(lines: 200))).events ?? []).filter {
            $0.kind == .cleanup && $0.reason == "storage" && $0.message.contains(gallery)
        }
        #expect(recovered.count == 1, "\(recovered)")
        #expect(daemon.stop() == 0)
    }
}
