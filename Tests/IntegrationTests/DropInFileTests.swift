import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// What is not a regular file in the drop-in directory, named `*.toml`, is refused at once
/// with an error that names it, by `--check-config` and by `reload`, and the daemon keeps
/// answering (issue 19, case 3: a FIFO blocked both until something wrote to it).
@Suite struct DropInFileTests {
    enum Kind: String, CaseIterable { case fifo, directory, device }

    /// Makes `path` a FIFO, a directory, or a symbolic link to `/dev/zero` (endless).
    static func make(_ kind: Kind, at path: String) -> Bool {
        switch kind {
        case .fifo: mkfifo(path, 0o644) == 0
        case .directory: mkdir(path, 0o755) == 0
        case .device: symlink("/dev/zero", path) == 0
        }
    }

    @Test(arguments: Kind.allCases)
    func aFileThatIsNotRegularIsRefusedWithoutBlocking(_ kind: Kind) throws {
        let daemon = try TestDaemon(config: "[apps.app]\ncommand = [\"/bin/sleep\", \"1000\"]\n")
        try daemon.start()
        let dropIns = daemon.directory.file("extensiond.d")
        #expect(mkdir(dropIns, 0o755) == 0)
        let odd = dropIns + "/10-odd.toml"
        #expect(Self.make(kind, at: odd))

        let check = try runCommand(
            Binaries.path("extensiond"), ["--check-config", "--config", daemon.configPath],
            in: daemon.directory, timeout: 5)
        #expect(check.exitCode == 1 && check.stderr.contains(odd + ": ") && check.stderr.contains("not a regular file"), "\(check.stderr)")

        let reload = try daemon.control(.reload)
        #expect(
            !reload.ok && reload.error?.contains(odd) == true && reload.error?.contains("not a regular file") == true,
            "\(reload.error ?? "ok")")
        #expect(try daemon.control(.status(NameSelection(["app"]))).status?.count == 1)
    }
}
