import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Values a peer controls at the ends of their domains, against a real daemon (issue 19):
/// each is answered or refused, and the daemon stays alive.
@Suite struct PeerValueTests {
    static let widget = "test.app.peer"

    static let group = "group.test.app"

    /// A bed whose widget answers its updates with `answers` (see ``ReplayingExtension``);
    /// its app owns ``group``.
    static func bed(answering answers: [[String]]) throws -> ExtensionTestBed {
        let bed = try ExtensionTestBed()
        let command = try ReplayingExtension.command(
            answering: answers, in: bed.daemon.directory, writable: bed.daemon.sharedDirectory)
        try bed.daemon.writeConfig(
            """
            [defaults.sandbox]
            write = ["\(bed.daemon.sharedDirectory)"]

            [apps."\(ExtensionTestBed.app)"]
            command = ["/bin/sleep", "1000"]
            groups = ["\(group)"]

            \(ExtensionTestBed.extensionTable(widget, command: command, settings: "idle_exit = \"30s\"", refresh: "pull_cooldown = \"0s\""))
            """)
        try bed.daemon.start()
        return bed
    }

    /// A `newData` result whose `reload` is `{"after": date}`, with a timeline holding `timeline`.
    static func result(after date: String, timeline: [String]) -> [String] {
        let entries = timeline.enumerated().map { #"{"date":"\#($1)","snapshot":{"entry":\#($0)}}"# }
        return [
            #"{"type":"result","id":__ID__,"result":"newData","snapshot":{"n":1},"reload":{"after":"\#(date)"},"timeline":[\#(entries.joined(separator: ","))]}"#
        ]
    }

    @Test(arguments: ["9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "0000-01-01T00:00:00+23:59", "9999-12-31T23:59:60.999999999-23:59"])
    func aFarDateIsAnsweredAndTheDaemonLives(_ date: String) throws {
        let bed = try Self.bed(answering: [
            Self.result(after: date, timeline: []),
            Self.result(after: "2026-01-01T00:00:00Z", timeline: [date]),
        ])
        for _ in 1...2 {
            let report = try bed.pull(Self.widget)
            #expect(report.snapshot?.field("n") == 1, "\(bed.diagnostics(Self.widget))")
        }
        #expect(try bed.status(Self.widget)?.pid != nil, "\(bed.diagnostics(Self.widget))")
        #expect(bed.daemon.process?.isRunning == true)
    }

    // MARK: Every field at the ends of its domain

    /// Each message of the extension protocol with one numeric or date field at one extreme;
    /// a message that is not the update's `result` is followed by one, so that every pull ends.
    static var extremes: [(field: String, answer: [String])] {
        let noData = #"{"type":"result","id":__ID__,"result":"noData"}"#
        let ids = ValueExtremes.requestIDs, sides = ValueExtremes.sides
        var cases: [(String, [String])] = []
        for id in ids {
            cases.append(("result.id \(id)", [#"{"type":"result","id":\#(id),"result":"noData"}"#, noData]))
            cases.append(("complete.id \(id)", [#"{"type":"complete","id":\#(id),"items":[]}"#, noData]))
            cases.append(("cancel.id \(id)", [#"{"type":"cancel","id":\#(id),"error":"x"}"#, noData]))
            cases.append(("openURL.id \(id)", [#"{"type":"openURL","id":\#(id),"url":"nowhere://x"}"#, noData]))
            cases.append(("defaults.id \(id)", [#"{"type":"defaults","id":\#(id),"group":"\#(group)","op":"get","key":"k"}"#, noData]))
            cases.append(("defaults.value \(id)", [#"{"type":"defaults","id":1,"group":"\#(group)","op":"set","key":"k","value":\#(id)}"#, noData]))
        }
        for side in sides {
            for (width, height) in [(side, "1"), ("1", side)] {
                cases.append(
                    (
                        "preferredSize \(width)x\(height)",
                        [
                            #"{"type":"result","id":__ID__,"result":"newData","snapshot":{},"preferredSize":{"width":\#(width),"height":\#(height)}}"#
                        ]
                    ))
            }
        }
        for date in ValueExtremes.dates + ValueExtremes.pastTheDates {
            cases.append(("reload.after \(date)", [#"{"type":"result","id":__ID__,"result":"newData","snapshot":{},"reload":{"after":"\#(date)"}}"#]))
            cases.append(("timeline.date \(date)", result(after: "2026-01-01T00:00:00Z", timeline: [date])))
            cases.append(("timeline.date \(date) twice", result(after: date, timeline: ["0000-01-01T00:00:00Z", date, "9999-12-31T23:59:59Z"])))
        }
        for count in [0, 1, 255, 256, 257] {
            let timeline = (0..<count).map { "2026-01-01T00:00:\(String(format: "%02d", $0 % 60)).\(String(format: "%03d", $0))Z" }
            cases.append(("timeline of \(count)", result(after: "9999-12-31T23:59:59Z", timeline: timeline)))
        }
        return cases
    }

    @Test func everyMessageWithEachFieldAtItsExtremesIsAnsweredOrRefused() throws {
        let cases = Self.extremes
        let bed = try Self.bed(answering: cases.map(\.answer))
        let cursor = bed.daemon.sharedDirectory + "/replay.cursor"
        let answered = { Int((try? String(contentsOfFile: cursor, encoding: .utf8)) ?? "") ?? 0 }
        for (index, (field, _)) in cases.enumerated() {
            // A manual refresh always updates (a pull may be served from a fresh snapshot); a
            // refused message ends its run, and the next refresh launches a new one.
            let refresh = try bed.control(.refresh(NameSelection([Self.widget])))
            #expect(refresh.ok, "\(field): \(refresh.error ?? "")")
            let handled = try eventually {
                try answered() > index && !["starting", "running"].contains(bed.status(Self.widget)?.state)
            }
            #expect(handled, "case \(index), \(field), was not handled: \(bed.diagnostics(Self.widget))")
            guard bed.daemon.process?.isRunning == true else {
                Issue.record("the daemon died at case \(index), \(field): \(bed.daemon.process?.stderr.suffix(2000) ?? "")")
                return
            }
        }
        #expect(answered() == cases.count)
        #expect(try bed.status(Self.widget) != nil)
    }

    /// `ready`'s `protocol`, before anything else: only 1 is accepted, the rest refused.
    @Test func readyWithAnExtremeProtocolIsRefused() throws {
        let daemon = try TestDaemon()
        let script = try daemon.directory.write(
            "ready.py",
            """
            import os, sys, time
            os.write(int(os.environ["EXTENSIOND_FD"]), b'{"type":"ready","protocol":' + sys.argv[1].encode() + b'}\\n')
            time.sleep(1000)
            """)
        let values = ValueExtremes.integers(upTo: 1)
        try daemon.writeConfig(
            "[apps.app]\ncommand = [\"/bin/sleep\", \"1000\"]\n\n"
                + values.indices.map { index in
                    "[extensions.ready\(index)]\napp = \"app\"\npoint = \"widget\"\ncommand = [\"/usr/bin/python3\", \"-S\", \"\(script)\", \"\(values[index])\"]\n"
                }.joined(separator: "\n"))
        try daemon.start()
        for index in values.indices {
            #expect(try daemon.control(.start(NameSelection(["ready\(index)"]))).ok)
        }
        for (index, value) in values.enumerated() {
            let state = { try daemon.control(.status(NameSelection(["ready\(index)"]))).status?.first?.state }
            if value == "1" {
                #expect(try eventually { try state() == "idle" }, "protocol 1 was refused")
            } else {
                #expect(try eventually { try Self.kills(daemon, "ready\(index)") == 1 }, "protocol \(value) was not refused")
            }
        }
        #expect(daemon.process?.isRunning == true)
    }

    static func kills(_ daemon: TestDaemon, _ name: String) throws -> Int {
        (try daemon.control(.events(LogRequest(lines: 1000))).events ?? []).filter { $0.kind == .kill && $0.name == name }.count
    }
}
