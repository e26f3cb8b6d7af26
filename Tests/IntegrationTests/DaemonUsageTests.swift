import ExtensiondTestSupport
import Foundation
import Testing

/// The daemon's own command line: each usage error exits 2 and names the argument at
/// fault, with the usage line; nothing is started.
@Suite struct DaemonUsageTests {
    @Test(arguments: [
        (["--bogus"], "Unknown option '--bogus'"),
        (["stray"], "Unexpected argument 'stray'"),
        (["--config"], "Missing value for '--config <config>'"),
        (["--config", "--verbose"], "Missing value for '--config <config>'"),
        (["--verbose=yes"], "The flag '--verbose' does not take a value"),
        (["--check-config", "--foreground=1"], "The flag '--foreground' does not take a value"),
    ])
    func aUsageErrorExitsTwoAndNamesTheArgument(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        let result = try runCommand(Binaries.path("extensiond"), arguments, in: directory)
        #expect(result.exitCode == 2)
        #expect(result.stderr.hasPrefix("Error: \(message)\n"), "\(result.stderr)")
        #expect(result.stderr.contains("Usage: extensiond"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aValueAfterEqualsIsTakenEvenWhenItLooksLikeAnOption() throws {
        let directory = try TemporaryDirectory()
        let result = try runCommand(Binaries.path("extensiond"), ["--config=--missing.toml", "--check-config"], in: directory)
        // Not a usage error: the config file named is read, and does not exist.
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("--missing.toml"), "\(result.stderr)")
    }
}
