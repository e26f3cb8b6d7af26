import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing
import WireProtocol

/// Long texts from an extension are refused or cut, and the event ring stays small in
/// bytes whatever the events say (issue 8, case 4; docs/PROTOCOL.md, "Limits").
@Suite struct LengthLimitTests {
    /// At its first update, sends 20 `openURL`s of 1 MB and 300 of 8,000 bytes (under the
    /// limit), and answers with how many of each were opened (a sandboxed extension cannot
    /// write a file to tell).
    static let urlFlood = #"""
        import json, os, socket
        connection = socket.socket(fileno=int(os.environ["EXTENSIOND_FD"]))
        connection.sendall(b'{"type":"ready","protocol":1}\n')
        reader = connection.makefile("rb")
        def send(message):
            connection.sendall(json.dumps(message).encode() + b"\n")
        def opened(url, id):
            send({"type": "openURL", "id": id, "url": url})
            while True:
                message = json.loads(reader.readline())
                if message["type"] == "openURLResult" and message["id"] == id:
                    return message["success"]
        update = json.loads(reader.readline())
        huge = sum(opened("mine://" + "h" * 1000000, n) for n in range(20))
        long = sum(opened("mine://%d/" % n + "l" * 7990, 100 + n) for n in range(300))
        send({"type": "result", "id": update["id"], "result": "newData", "snapshot": {"huge": huge, "long": long}})
        reader.readline()
        """#

    @Test func hugeURLsAreRefusedAndTheEventRingStaysSmall() throws {
        let daemon = try TestDaemon()
        let script = try daemon.directory.write("flood.py", Self.urlFlood)
        try daemon.writeConfig(
            """
            [apps.mine]
            command = ["/bin/sh", "-c", "exec sleep 1000", "app"]
            url_schemes = ["mine"]

            [extensions.flood]
            app = "mine"
            point = "widget"
            command = ["/usr/bin/python3", "-S", "\(script)"]

            [extensions.flood.refresh]
            deadline = "300s"
            """)
        try daemon.start()
        let host = try daemon.connectHost()
        let answer = try host.pull("flood", id: RequestID(rawValue: 1), timeout: 300)
        guard case .snapshot(let snapshot) = answer, let counts = try snapshot.snapshot?.decoded() else {
            Issue.record("no snapshot: \(answer)")
            return
        }
        #expect(counts.field("huge") == 0 && counts.field("long") == 300, "\(counts)")

        let events = try daemon.exchange(ControlCodec.line(ControlRequest.events(LogRequest(lines: ControlLimits.logLines.upperBound))))
        #expect(events.count < (1 << 20) + (256 << 10), "the events answer is \(events.count) bytes")
        let kept = try ControlCodec.decode(ControlResponse.self, from: events.dropLast()).events ?? []
        // 300 opens of 4 KiB messages (cut from 8 KB) are over the 1 MiB: the oldest went.
        #expect(kept.count > 50 && kept.count < 300, "\(kept.count) events kept")
        #expect(kept.allSatisfy { $0.message.utf8.count <= 4096 + 64 })
        let text = try daemon.supervisorctl(["events", "-n", "\(ControlLimits.logLines.upperBound)"])
        #expect(text.exitCode == 0 && text.stdout.contains("mine://299/"))
        #expect(daemon.process?.isRunning == true)
        // The daemon's own log lines are bounded too (4 KiB, a stamp and what was cut).
        let longest = (daemon.process?.stderr ?? "").split(separator: "\n").map(\.utf8.count).max() ?? 0
        #expect(longest > 0 && longest <= 4096 + 128, "the daemon wrote a log line of \(longest) bytes")
    }

    /// 10,000 lines of 2 KB are more than a control answer may carry (16 MiB): `tail`
    /// answers with an error naming the limit and exits non-zero, never with silence.
    @Test func anAnswerPastTheLimitIsAnErrorEndToEnd() throws {
        let daemon = try TestDaemon()
        try daemon.writeConfig(
            """
            [hosts.talker]
            command = ["/usr/bin/python3", "-S", "-c", "import sys, time; sys.stdout.write(('x' * 2000 + '\\\\n') * 10000); sys.stdout.flush(); time.sleep(1000)"]
            """, supervisor: "log_max_size = \"64M\"\noutput_rate = \"1G\"")
        try daemon.start()
        let log = daemon.stateDirectory + "/logs/talker.log"
        #expect(eventually(timeout: 20) { ((try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0) >= 10_000 * 2_000 })
        let tail = try daemon.supervisorctl(["tail", "-n", "10000", "talker"])
        #expect(tail.exitCode != 0)
        #expect(tail.stderr.contains("\(ControlLimits.answerBytes)-byte limit"), "\(tail.stderr)")
        #expect(tail.stdout.isEmpty)
        let fewer = try daemon.supervisorctl(["tail", "-n", "1000", "talker"])
        #expect(fewer.exitCode == 0 && fewer.stdout.split(separator: "\n").count == 1000)
    }
}
