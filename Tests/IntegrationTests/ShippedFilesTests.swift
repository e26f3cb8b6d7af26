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

    /// These aborted the C++ TOML library once (exit 134); they are syntax errors with a position.
    @Test(arguments: ["[\n", "[.", "[[["])
    func checkConfigRefusesBrokenTOMLWithAPosition(text: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("broken.toml", text)
        let result = try runCommand(Binaries.path("extensiond"), ["--check-config", "--config", path], in: directory)
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("broken.toml:1:"), "\(result.stderr)")
        #expect(result.stderr.contains("TOML syntax error: expected a key"), "\(result.stderr)")
    }

    @Test func systemdAcceptsTheUnits() throws {
        let directory = try TemporaryDirectory()
        let unit = try String(contentsOfFile: root + "/units/extensiond.service", encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/extensiond", with: Binaries.path("extensiond"))
            .replacingOccurrences(of: "/usr/local/bin/supervisorctl", with: Binaries.path("supervisorctl"))
        for directive in [
            "Type=notify", "WatchdogSec=", "Delegate=yes", "ExecReload=\(Binaries.path("supervisorctl")) reload", "RuntimeDirectory=",
            "RuntimeDirectoryPreserve=yes", "StateDirectory=", "ConfigurationDirectory=", "OOMPolicy=continue", "KillMode=mixed",
        ] {
            #expect(unit.contains(directive), "missing \(directive)")
        }
        let socket = try String(contentsOfFile: root + "/units/extensiond.socket", encoding: .utf8)
        for directive in ["ListenStream=/run/extensiond/control.sock", "ListenStream=/run/extensiond/host.sock"] {
            #expect(socket.contains(directive), "missing \(directive)")
        }
        let path = try directory.write("extensiond.service", unit)
        let socketPath = try directory.write("extensiond.socket", socket)
        // --man=no: the Documentation= man pages exist once installed, not here.
        let result = try runCommand("/usr/bin/systemd-analyze", ["verify", "--man=no", path, socketPath], in: directory)
        #expect(result.exitCode == 0, "\(result.stderr)")
        // verify only warns about bad lines; any mention of the files is a problem.
        #expect(!result.stderr.contains("extensiond.s"), "\(result.stderr)")
    }

    /// `systemd-analyze security` reads the unit file alone with --offline (no systemd as
    /// PID 1 needed); the VM test rates the running unit as well.
    @Test func systemdRatesTheUnitsExposureAtMostFive() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("extensiond.service", try String(contentsOfFile: root + "/units/extensiond.service", encoding: .utf8))
        let result = try runCommand("/usr/bin/systemd-analyze", ["security", "--offline=true", "--no-pager", path], in: directory)
        let overall = result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level for extensiond.service:") }
        let exposure = overall?.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        #expect(exposure != nil, "no overall rating in: \(result.stdout) \(result.stderr)")
        #expect((exposure ?? 10) <= 5.0, "\(result.stdout)")
        // The hardening must not cost what the daemon is for.
        #expect(result.stdout.contains("Delegate="), "the rating lists Delegate=")
        let unit = try String(contentsOfFile: path, encoding: .utf8)
        for directive in ["Delegate=yes", "OOMScoreAdjust=-", "RuntimeDirectory=extensiond", "StateDirectory=extensiond"] {
            #expect(unit.contains(directive), "missing \(directive)")
        }
    }
}
