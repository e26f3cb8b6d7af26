import ExtensiondTestSupport
import Foundation
import Testing

/// What ships beside the binaries: the demo config and the systemd unit.
@Suite struct ShippedFilesTests {
    let root = Binaries.packageRoot()

    @Test(arguments: ["extensiond.toml", "system.toml"])
    func theShippedConfigsValidate(name: String) throws {
        let directory = try TemporaryDirectory()
        let result = try runCommand(Binaries.path("extensiond"), ["--check-config", "--config", root + "/config/" + name], in: directory)
        #expect(result.exitCode == 0, "\(result.stderr)")
    }

    @Test func checkConfigNamesTheLineOfAMistake() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("bad.toml", "[supervisor]\nmemory_budget = \"12 parsecs\"\n")
        let result = try runCommand(Binaries.path("extensiond"), ["--check-config", "--config", path], in: directory)
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("bad.toml:2"))
        #expect(result.stderr.contains("memory_budget"))
    }

    @Test func systemdAcceptsTheUnit() throws {
        let directory = try TemporaryDirectory()
        let unit = try String(contentsOfFile: root + "/units/extensiond.service", encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/extensiond", with: Binaries.path("extensiond"))
        for directive in ["Type=notify", "WatchdogSec=", "Delegate=yes", "ExecReload=", "RuntimeDirectory=", "StateDirectory=",
                          "ConfigurationDirectory=", "OOMPolicy=continue", "KillMode=mixed"] {
            #expect(unit.contains(directive), "missing \(directive)")
        }
        let path = try directory.write("extensiond.service", unit)
        let result = try runCommand("/usr/bin/systemd-analyze", ["verify", path], in: directory)
        #expect(result.exitCode == 0)
        // verify only warns about bad lines; any mention of the file is a problem.
        #expect(!result.stderr.contains("extensiond.service"), "\(result.stderr)")
    }
}
