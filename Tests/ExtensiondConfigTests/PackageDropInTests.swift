import ExtensiondConfig
import Glibc
import Testing

/// The packages' drop-in directory (`supervisor.package_drop_in_dir`, outside /etc so that
/// `dpkg -r` removes an app's manifest) beside the administrator's `<dir>/<name>.d`.
@Suite struct PackageDropInTests {
    /// A main file whose `[supervisor]` points at `packages.d` in the same directory.
    private func mainFile(_ directory: ConfigDirectory, _ extra: String = "") throws {
        try directory.write(
            "extensiond.toml",
            minimalConfig + "[supervisor]\npackage_drop_in_dir = \"\(directory.path)/packages.d\"\n" + extra)
    }

    @Test func bothDirectoriesMergeInNameOrderAndTheAdministratorsFileReplacesThePackagesOne() throws {
        let directory = try ConfigDirectory()
        try mainFile(directory)
        let first = try directory.write("packages.d/10-first.toml", "[hosts.first]\ncommand = [\"/bin/first\"]\n")
        _ = try directory.write("packages.d/20-app.toml", "[hosts.packaged]\ncommand = [\"/bin/packaged\"]\n")
        let replacing = try directory.write("extensiond.d/20-app.toml", "[hosts.local]\ncommand = [\"/bin/local\"]\n")
        let last = try directory.write("extensiond.d/30-last.toml", "[hosts.last]\ncommand = [\"/bin/last\"]\n")

        let configuration = try ConfigurationLoader.load(path: directory.main)

        #expect(configuration.sources == [directory.main, first, replacing, last])
        #expect(configuration.hosts.map(\.id).sorted() == ["first", "last", "local"])
        #expect(configuration.supervisor.packageDropInDirectory == directory.path + "/packages.d")
        #expect(
            ConfigurationLoader.dropInDirectories(for: directory.main, configuration.supervisor)
                == [directory.path + "/packages.d", directory.path + "/extensiond.d"])
    }

    @Test func anEmptyAdministratorsFileMasksThePackagesManifest() throws {
        let directory = try ConfigDirectory()
        try mainFile(directory)
        _ = try directory.write("packages.d/com.example.notes.toml", "[hosts.notes]\ncommand = [\"/bin/notes\"]\n")
        _ = try directory.write("extensiond.d/com.example.notes.toml", "")

        #expect(try ConfigurationLoader.load(path: directory.main).hosts.isEmpty)
    }

    @Test func thePackagesDirectoryIsSetInTheMainFileOnly() throws {
        let directory = try ConfigDirectory()
        try mainFile(directory)
        let dropIn = try directory.write("extensiond.d/50-moves.toml", "[supervisor]\n\npackage_drop_in_dir = \"/elsewhere\"\n")

        let errors = directory.loadErrors()
        #expect(errors.count == 1)
        #expect(
            errors.first.map { [$0.file, "\($0.line ?? 0):\($0.column ?? 0)", $0.keyPath] }
                == [dropIn, "3:1", "supervisor.package_drop_in_dir"])
        #expect(errors.first?.message.contains("main file only") == true)
    }

    @Test func aRelativePackagesDirectoryIsAnErrorAtItsKey() throws {
        let directory = try ConfigDirectory()
        try directory.write("extensiond.toml", minimalConfig + "[supervisor]\npackage_drop_in_dir = \"packages.d\"\n")

        let errors = directory.loadErrors()
        #expect(errors.count == 1)
        #expect(errors.first?.file == directory.main && errors.first?.line == 9)
        #expect(errors.first?.message.contains("expected an absolute path") == true)
    }

    /// The packages' directory is a drop-in directory like the other: what is not a regular
    /// file there is refused by name.
    @Test func aFIFOInThePackagesDirectoryIsRefusedByName() throws {
        let directory = try ConfigDirectory()
        try mainFile(directory)
        let fifo = try directory.write("packages.d/.keep", "").replacingOccurrences(of: ".keep", with: "fifo.toml")
        #expect(mkfifo(fifo, 0o644) == 0)

        let errors = directory.loadErrors()
        #expect(errors.count == 1 && errors.first?.file == fifo)
        #expect(errors.first?.message.contains("not a regular file") == true)
    }
}
