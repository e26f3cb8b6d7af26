import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Testing

/// Values a peer controls at the ends of their domains, against a real daemon (issue 19):
/// each is answered or refused, and the daemon stays alive.
@Suite struct PeerValueTests {
    static let widget = "test.app.peer"

    /// A bed whose widget answers its updates with `answers` (see ``ReplayingExtension``).
    static func bed(answering answers: [String]) throws -> ExtensionTestBed {
        let bed = try ExtensionTestBed()
        let command = try ReplayingExtension.command(
            answering: answers, in: bed.daemon.directory, writable: bed.daemon.sharedDirectory)
        try bed.start(ExtensionTestBed.extensionTable(
            widget, command: command, settings: "idle_exit = \"30s\"", refresh: "pull_cooldown = \"0s\""))
        return bed
    }

    /// A `newData` result whose `reload` is `{"after": date}`, with a timeline holding `timeline`.
    static func result(after date: String, timeline: [String]) -> String {
        let entries = timeline.enumerated().map { #"{"date":"\#($1)","snapshot":{"entry":\#($0)}}"# }
        return #"[{"type":"result","id":__ID__,"result":"newData","snapshot":{"n":1},"reload":{"after":"\#(date)"},"timeline":[\#(entries.joined(separator: ","))]}]"#
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
}
