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
        (["--check-config=no"], "The flag '--check-config' does not take a value"),
        (["--config="], "Missing value for '--config <config>'"),
        (["--config", "-v"], "Missing value for '--config <config>'"),
        (["--version=2"], "The flag '--version' does not take a value"),
        (["--help=all"], "The flag '--help' does not take a value"),
        (["--help-man=troff"], "The flag '--help-man' does not take a value"),
        (["-x"], "Unknown option '-x'"),
    ])
    func aUsageErrorExitsTwoAndNamesTheArgument(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runCommand(Binaries.path("extensiond"), arguments, in: directory)
        #expect(result.exitCode == 2)
        #expect(result.stderr.hasPrefix("Error: \(message)\n"), "\(result.stderr)")
        #expect(result.stderr.contains("Usage: extensiond"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aValueAfterEqualsIsTakenEvenWhenItLooksLikeAnOption() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runCommand(Binaries.path("extensiond"), ["--config=--missing.toml", "--check-config"], in: directory)
        // Not a usage error: the config file named is read, and does not exist.
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("--missing.toml"), "\(result.stderr)")
    }

    /// extensiond(8) as shipped (docs/man/extensiond.8) is what the daemon prints from its
    /// option list: an option added without `make man` fails here.
    @Test func theShippedManPageIsTheGeneratedOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runCommand(Binaries.path("extensiond"), ["--help-man"], in: directory)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let shipped = try String(contentsOfFile: Binaries.packageRoot() + "/docs/man/extensiond.8", encoding: .utf8)
        #expect(result.stdout == shipped, "docs/man/extensiond.8 differs from `extensiond --help-man`: run `make man`")
        let help = try runCommand(Binaries.path("extensiond"), ["--help"], in: directory).stdout
        for option in ["--config", "--check-config", "--foreground", "--verbose", "--version", "--help-man"] {
            #expect(help.contains(option + " ") || help.contains(option + "\n"), "--help lacks \(option)")
            #expect(result.stdout.contains(option.replacingOccurrences(of: "-", with: "\\-")), "the page lacks \(option)")
        }
    }
}
