import ControlProtocol
import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// An app's package ships its manifest in the packages' drop-in directory
/// (`supervisor.package_drop_in_dir`, /usr/lib/extensiond/extensiond.d), which `dpkg -r`
/// empties, unlike /etc; a file of the same name in the administrator's directory replaces it.
@Suite struct PackageDropInTests {
    static let notes = "com.example.notes.widget"

    private func manifest(_ gallery: GalleryBed, displayName: String) throws -> String {
        """
        [apps."com.example.notes"]
        command = ["/bin/sleep", "1000"]

        [extensions."\(Self.notes)"]
        app = "com.example.notes"
        point = "widget"
        command = \(try gallery.bed.command(.params))
        display_name = "\(displayName)"

        """
    }

    /// The display name of the notes widget in the list, once `matches` holds within 2 s.
    private func listed(_ manager: TestHost, _ matches: @escaping (String?) -> Bool) throws -> Bool {
        var id: UInt64 = 10
        return try eventually(timeout: 2) {
            id += 1
            return matches(try manager.list(id: id).extensions.first { $0.id == Self.notes }?.displayName)
        }
    }

    @Test func aPackagesManifestIsAppliedOverriddenMaskedAndRemoved() throws {
        let gallery = try GalleryBed()
        let manager = try gallery.connectManager()
        _ = try manager.list(id: 1)
        // Neither directory exists when the daemon starts: both are created later.
        let packaged = gallery.daemon.packageDropInDirectory + "/com.example.notes.toml"
        let local = gallery.daemon.directory.file("extensiond.d") + "/com.example.notes.toml"
        try FileManager.default.createDirectory(atPath: gallery.daemon.packageDropInDirectory, withIntermediateDirectories: true)
        try manifest(gallery, displayName: "Notes").write(toFile: packaged, atomically: true, encoding: .utf8)
        #expect(try listed(manager) { $0 == "Notes" })

        try FileManager.default.createDirectory(atPath: gallery.daemon.directory.file("extensiond.d"), withIntermediateDirectories: true)
        try manifest(gallery, displayName: "Local notes").write(toFile: local, atomically: true, encoding: .utf8)
        #expect(try listed(manager) { $0 == "Local notes" })
        // An empty file masks the package's manifest; removing it brings the manifest back.
        try "".write(toFile: local, atomically: true, encoding: .utf8)
        #expect(try listed(manager) { $0 == nil })
        try FileManager.default.removeItem(atPath: local)
        #expect(try listed(manager) { $0 == "Notes" })

        try FileManager.default.removeItem(atPath: packaged)
        #expect(try listed(manager) { $0 == nil })
        #expect(try gallery.bed.status(Self.notes) == nil)
    }

    /// The packages' directory is watched even when its parents are made after the start
    /// (`mkdir -p` while installing extensiond itself).
    @Test func aPackagesDirectoryWhoseParentsAppearLaterIsWatched() throws {
        let app = "[apps.first]\ncommand = [\"/bin/sleep\", \"1000\"]\n"
        let daemon = try TestDaemon(config: app)
        let deep = daemon.directory.file("usr/lib/extensiond/extensiond.d")
        try daemon.writeConfig(app, supervisor: "package_drop_in_dir = \"\(deep)\"")
        try daemon.start()
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        _ = try daemon.directory.write("usr/lib/extensiond/extensiond.d/second.toml", "[apps.second]\ncommand = [\"/bin/sleep\", \"1000\"]\n")
        #expect(try eventually(timeout: 2) { try daemon.control(.status(NameSelection(["second"]))).status?.count == 1 })
    }

    /// `--check-config` reads the packages' directory too, and names a broken file there.
    @Test func checkConfigReadsThePackagesDirectory() throws {
        let daemon = try TestDaemon(config: "[apps.app]\ncommand = [\"/bin/sleep\", \"1000\"]\n")
        try FileManager.default.createDirectory(atPath: daemon.packageDropInDirectory, withIntermediateDirectories: true)
        let broken = try daemon.directory.write("packages.d/broken.toml", "[apps.broken]\n\ncommand = 1\n")
        let check = try runCommand(
            Binaries.path("extensiond"), ["--check-config", "--config", daemon.configPath],
            in: daemon.directory, timeout: 5)
        #expect(check.exitCode == 1 && check.stderr.contains(broken + ":3:"), "\(check.stderr)")
    }
}
