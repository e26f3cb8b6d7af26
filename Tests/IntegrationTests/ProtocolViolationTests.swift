import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// What an extension sends after its first protocol violation is not acted on: the
/// daemon stops reading at the violation and kills the run once (issue 8, case 7).
@Suite struct ProtocolViolationTests {
    /// Writes `burst` (lines joined) in one `write` right after `ready`, then sleeps.
    static func burstingExtension(_ burst: [String]) -> String {
        let payload = burst.joined(separator: "\n") + "\n"
        return #"""
            import os, time
            fd = int(os.environ["EXTENSIOND_FD"])
            os.write(fd, b'{"type":"ready","protocol":1}\n' + \#(pythonBytes(payload)))
            time.sleep(1000)
            """#
    }

    static func pythonBytes(_ text: String) -> String {
        "bytes.fromhex(\"" + text.utf8.map { String(format: "%02x", $0) }.joined() + "\")"
    }

    static func config(_ script: String, _ launches: String) -> String {
        """
        [apps.mine]
        command = ["/bin/sh", "-c", "echo \\"$@\\" >> \(launches); exec sleep 1000", "app"]
        url_schemes = ["mine"]
        groups = ["group.mine"]

        [extensions.burst]
        app = "mine"
        point = "widget"
        command = ["/usr/bin/python3", "-S", "\(script)"]
        """
    }

    @Test func nothingAfterASecondReadyIsActedOn() throws {
        let daemon = try TestDaemon()
        let script = try daemon.directory.write(
            "burst.py",
            Self.burstingExtension([
                #"{"type":"ready","protocol":1}"#,
                #"{"type":"defaults","id":1,"group":"group.mine","op":"set","key":"leaked","value":1}"#,
                #"{"type":"openURL","id":2,"url":"mine://leaked"}"#,
            ]))
        let launches = daemon.directory.file("launches")
        try daemon.writeConfig(Self.config(script, launches))
        try daemon.start()
        #expect(try daemon.control(.start(NameSelection(["burst"]))).ok)
        #expect(try eventually { try Self.kills(daemon).count == 1 })
        Thread.sleep(forTimeInterval: 0.3)

        #expect(try Self.kills(daemon).map(\.message).first?.contains("ready sent twice") == true)
        #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory + "/defaults/group.mine.json"))
        #expect(!FileManager.default.fileExists(atPath: launches), "the app was launched by an openURL sent after the violation")
        #expect(try daemon.control(.status(NameSelection(["mine"]))).status?.first?.pid == nil)
    }

    @Test(arguments: ["not json", #"{"type":"result","id":99,"result":"noData"}"#])
    func fiveBadLinesInOneReadAreOneKill(_ line: String) throws {
        let daemon = try TestDaemon()
        let script = try daemon.directory.write("burst.py", Self.burstingExtension(Array(repeating: line, count: 5)))
        try daemon.writeConfig(Self.config(script, daemon.directory.file("launches")))
        try daemon.start()
        #expect(try daemon.control(.start(NameSelection(["burst"]))).ok)
        // Its first launch waits for its app's uid to be on disk: wait for the kill itself.
        #expect(try eventually { try !Self.kills(daemon).isEmpty })
        #expect(try eventually { try daemon.control(.status(NameSelection(["burst"]))).status?.first?.pid == nil })
        Thread.sleep(forTimeInterval: 0.3)
        let kills = try Self.kills(daemon)
        #expect(kills.count == 1, "\(kills)")
        let stats = try daemon.control(.stats(NameSelection(["burst"]))).stats?.processes.first
        #expect(stats?.kills == ["protocol": 1] && stats?.launches == 1)
    }

    static func kills(_ daemon: TestDaemon) throws -> [EventRecord] {
        (try daemon.control(.events(LogRequest(lines: 1000))).events ?? [])
            .filter { $0.kind == .kill && $0.name == "burst" }
    }
}
