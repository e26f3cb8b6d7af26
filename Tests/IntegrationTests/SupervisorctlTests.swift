import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// supervisorctl against a real daemon: output, exit codes, and a control socket
/// that survives garbage.
@Suite struct SupervisorctlTests {
    @Test func statusListsEveryConfiguredName() throws {
        let daemon = try TestDaemon(config: DaemonLifecycleTests.twoHosts)
        try daemon.start()
        let text = try daemon.supervisorctl(["status"])
        #expect(text.exitCode == 0)
        for name in ["panel", "com.example.app", "com.example.app.widget"] {
            #expect(text.stdout.contains(name))
        }
        #expect(text.stdout.contains("stopped"))

        let json = try daemon.supervisorctl(["status", "--json"])
        #expect(json.exitCode == 0)
        let entries = try JSONDecoder().decode(ControlResponse.self, from: Data(json.stdout.utf8)).status ?? []
        #expect(entries.map(\.name) == ["panel", "com.example.app", "com.example.app.widget"])
        #expect(entries.map(\.kind) == [.host, .app, .extension])

        let one = try daemon.supervisorctl(["status", "panel"])
        #expect(one.stdout.contains("panel") && !one.stdout.contains("widget"))
    }

    @Test func unknownNameExitsFour() throws {
        let daemon = try TestDaemon()
        try daemon.start()
        let result = try daemon.supervisorctl(["status", "nope"])
        #expect(result.exitCode == 4)
        #expect(result.stderr.contains("'nope'"))
    }

    @Test func noDaemonMeansExitCodeSeven() throws {
        let directory = try TemporaryDirectory()
        let socket = directory.file("absent.sock")
        let result = try runCommand(Binaries.path("supervisorctl"), ["--socket", socket, "status"], in: directory)
        #expect(result.exitCode == 7)
        #expect(result.stderr.contains(socket))

        let fromEnvironment = try runCommand(Binaries.path("supervisorctl"), ["status"], environment: ["EXTENSIOND_SOCKET": socket], in: directory)
        #expect(fromEnvironment.exitCode == 7)
        #expect(fromEnvironment.stderr.contains(socket))
    }

    @Test(arguments: [["frobnicate"], ["status", "--bogus"], ["--socket"]])
    func badUsageMeansExitCodeTwo(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let result = try runCommand(Binaries.path("supervisorctl"), arguments, in: directory)
        #expect(result.exitCode == 2)
        #expect(!result.stderr.isEmpty)
    }

    @Test func garbageOnTheControlSocketGetsAnErrorAndChangesNothing() throws {
        let daemon = try TestDaemon(config: DaemonLifecycleTests.twoHosts)
        try daemon.start()
        let garbage: [[UInt8]] = [
            Array("not json at all\n".utf8),
            Array("{\"command\":\"explode\"}\n".utf8),
            Array("{\"names\":[]}\n".utf8),
            [0xff, 0xfe, 0x00, 0x0a],
            (0..<1000).map { _ in UInt8.random(in: 0...255) } + [0x0a],
        ]
        for bytes in garbage {
            let reply = String(decoding: try daemon.exchange(bytes), as: UTF8.self)
            #expect(reply.contains("\"ok\":false"), "reply to garbage: \(reply)")
        }
        // Oversized: 1 MiB without a newline is refused with an error, not buffered.
        let oversized = try daemon.exchange([UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20))
        #expect(String(decoding: oversized, as: UTF8.self).contains("longer than"))
        // A client that connects and vanishes.
        _ = try daemon.exchange([], timeout: 0.1)
        #expect(try daemon.control(.status(NameSelection())).status?.count == 3)
        #expect(daemon.process?.isRunning == true)
    }

    @Test func versionNamesBothSides() throws {
        let daemon = try TestDaemon()
        try daemon.start()
        let result = try daemon.supervisorctl(["version"])
        #expect(result.exitCode == 0)
        #expect(result.stdout.contains("supervisorctl \(extensiondVersion)"))
        #expect(result.stdout.contains("extensiond \(extensiondVersion)"))
    }
}
