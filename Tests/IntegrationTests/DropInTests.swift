import ControlProtocol
import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// An app installed and removed as a unit (issue 22, item 5): its drop-in is its manifest,
/// and the daemon applies it as soon as it appears, changes or goes, without a command.
@Suite struct DropInTests {
    static let notes = "com.example.notes.widget"

    /// The manifest of an app with one widget, as its package would ship it.
    private func manifest(_ gallery: GalleryBed) throws -> String {
        let command = try gallery.bed.command(.params)
        return """
            [apps."com.example.notes"]
            command = ["/bin/sleep", "1000"]
            url_schemes = ["notes"]

            [extensions."\(Self.notes)"]
            app = "com.example.notes"
            point = "widget"
            command = \(command)
            display_name = "Notes"

            """
    }

    /// The next `extensions` pushed (without `id`) that `matches`.
    private func pushedList(on host: TestHost, timeout: Double, _ matches: @escaping ([SupervisorToHost.ExtensionInfo]) -> Bool) throws
        -> [SupervisorToHost.ExtensionInfo]
    {
        let pushed = try host.receive(timeout: timeout) {
            if case .extensions(let list) = $0 { list.id == nil && matches(list.extensions) } else { false }
        }
        guard case .extensions(let list) = pushed else { return [] }
        return list.extensions
    }

    @Test func anAppsDropInIsInstalledAndRemovedWithoutACommand() throws {
        let gallery = try GalleryBed()
        let manager = try gallery.connectManager()
        _ = try manager.list(id: 1)
        let directory = gallery.daemon.directory.file("extensiond.d")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/com.example.notes.toml"

        let copied = ContinuousClock.now
        try manifest(gallery).write(toFile: file, atomically: true, encoding: .utf8)
        let installed = try pushedList(on: manager, timeout: 2) { $0.contains { $0.id == Self.notes } }
        #expect(ContinuousClock.now - copied < .seconds(2))
        // In the gallery, off until the user adds it.
        let notes = try #require(installed.first { $0.id == Self.notes })
        #expect(notes.displayName == "Notes" && !notes.enabled)
        let added = try manager.request(.addInstance(.init(id: 2, extensionID: Self.notes, instance: "todo", params: [:])))
        #expect(added == .addInstanceResult(.init(id: 2, success: true)))
        #expect(try manager.list(id: 3).extensions.first { $0.id == Self.notes }?.enabled == true)

        let removed = ContinuousClock.now
        try FileManager.default.removeItem(atPath: file)
        let after = try pushedList(on: manager, timeout: 2) { !$0.contains { $0.id == Self.notes } }
        #expect(ContinuousClock.now - removed < .seconds(2))
        #expect(after.map(\.id) == [GalleryBed.other, GalleryBed.widget])
        #expect(try gallery.bed.status(Self.notes) == nil)
        // What the user added to it is forgotten with it (gallery.json is written beside the loop).
        #expect(
            eventually(timeout: 10) {
                FileManager.default.contents(atPath: gallery.daemon.stateDirectory + "/gallery.json").map {
                    !String(decoding: $0, as: UTF8.self).contains(Self.notes)
                } == true
            })
    }

    /// An app installed while the daemon was stopped is found at the next start as one
    /// dropped in while it runs: its widgets are in the gallery, off until the user adds them;
    /// widgets of the first start and those seen before keep their state.
    @Test func anAppInstalledWhileTheDaemonWasStoppedStartsDisabled() throws {
        let gallery = try GalleryBed()
        #expect(try gallery.connectManager().list(id: 1).extensions.first { $0.id == GalleryBed.widget }?.enabled == true)
        let directory = gallery.daemon.directory.file("extensiond.d")
        try gallery.restart {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try manifest(gallery).write(toFile: directory + "/com.example.notes.toml", atomically: true, encoding: .utf8)
        }
        let manager = try gallery.connectManager()
        let listed = try manager.list(id: 1).extensions
        let notes = try #require(listed.first { $0.id == Self.notes })
        #expect(notes.displayName == "Notes" && !notes.enabled)
        #expect(listed.first { $0.id == GalleryBed.widget }?.enabled == true)

        let added = try manager.request(.addInstance(.init(id: 2, extensionID: Self.notes, instance: "todo", params: [:])))
        #expect(added == .addInstanceResult(.init(id: 2, success: true)))
        try gallery.restart()
        let again = try gallery.connectManager().list(id: 1).extensions
        #expect(again.first { $0.id == Self.notes }?.enabled == true)
        #expect(again.first { $0.id == GalleryBed.widget }?.enabled == true)
    }

    @Test func aBrokenDropInKeepsTheConfigurationAndSaysWhy() throws {
        let gallery = try GalleryBed()
        let directory = gallery.daemon.directory.file("extensiond.d")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "[apps.broken\ncommand = 1\n".write(toFile: directory + "/broken.toml", atomically: true, encoding: .utf8)
        #expect(
            try eventually(timeout: 3) {
                let events = try gallery.daemon.control(.events(LogRequest(lines: 100))).events ?? []
                return events.contains { $0.reason == "drop-in" && $0.message.contains("broken.toml") }
            })
        let host = try gallery.daemon.connectHost()
        #expect(try host.list(id: 1).extensions.map(\.id) == [GalleryBed.other, GalleryBed.widget])
    }

    /// dpkg runs `postinst triggered` after an app's package installed its drop-in
    /// (debian/extensiond.triggers). dpkg itself is not run here (it would install into this machine):
    /// the maintainer script is run as dpkg runs it, with `extensiondctl` on its PATH a
    /// recorder standing in for the real one, and a socket at the control socket's path.
    @Test func theDebianTriggerAppliesTheDropIns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.file("calls")
        try FileManager.default.createDirectory(atPath: directory.file("bin"), withIntermediateDirectories: true)
        let recorder = try directory.write("bin/extensiondctl", "#!/bin/sh\necho \"$@\" >> \(log)\n")
        chmod(recorder, 0o755)
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let triggers = try String(contentsOfFile: root + "/debian/extensiond.triggers", encoding: .utf8)
        let interests = triggers.split(separator: "\n").filter { $0.hasPrefix("interest-noawait ") }
        #expect(interests == ["interest-noawait /usr/lib/extensiond/extensiond.d", "interest-noawait /etc/extensiond/extensiond.d"])
        let script = try String(contentsOfFile: root + "/debian/extensiond.postinst", encoding: .utf8)
            .replacingOccurrences(of: "/run/extensiond/control.sock", with: directory.file("control.sock"))
        let postinst = try directory.write("postinst", script)
        let socket = try FakeSocketServer(path: directory.file("control.sock"))
        defer { socket.stop() }
        let run = try runCommand(
            "/bin/sh", [postinst, "triggered", "/etc/extensiond/extensiond.d"],
            environment: ["PATH": directory.file("bin") + ":/usr/bin:/bin"], in: directory)
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "update\n")
    }
}
