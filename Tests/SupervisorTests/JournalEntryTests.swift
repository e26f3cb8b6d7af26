import ControlProtocol
import ExtensiondTestSupport
import Systemd
import Testing

@testable import DaemonSupport
@testable import Output

/// The fields the daemon sends to the journal, built as pure values and through the
/// output log with a recording journal in place of libsystemd's (the real socket is
/// exercised by the integration and VM tests).
@Suite struct JournalEntryTests {
    @Test func outputLinesNameTheirProcessAndStderrIsAWarning() {
        let out = OutputJournal.entry("hello", from: .stdout, name: "demo.widget", kind: .extension)
        #expect(out.fields.map(\.name) == ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "EXTENSIOND_PROCESS", "EXTENSIOND_KIND", "EXTENSIOND_STREAM"])
        #expect(out["MESSAGE"] == "hello" && out["PRIORITY"] == "6" && out["SYSLOG_IDENTIFIER"] == "demo.widget")
        #expect(out["EXTENSIOND_PROCESS"] == "demo.widget" && out["EXTENSIOND_KIND"] == "extension" && out["EXTENSIOND_STREAM"] == "stdout")
        #expect(OutputJournal.entry("oops", from: .stderr, name: "panel", kind: .host)["PRIORITY"] == "4")
    }

    @Test func aPressureKillCarriesItsIdReasonAndTimings() {
        var kill = KillRecord(band: "idleExtension", triggerUs: 1_000, decisionUs: 1_250, signalUs: 1_300, emptyUs: 4_300)
        kill.rssBytes = 50 << 20
        kill.growthBytes = 20 << 20
        kill.treeUsageBytes = 900 << 20
        kill.budgetBytes = 1 << 30
        kill.psiSomeAvg10 = 1.5
        kill.lastBelowLowUs = 900
        let event = EventRecord(sequence: 7, timeMs: 0, kind: .kill, name: "demo.widget", reason: "pressure", message: "killed", kill: kill)
        let entry = EventJournal.entry(event, figures: [])
        #expect(entry["MESSAGE_ID"] == "d29aa78288524e81afbb51efb686837b")
        #expect(entry["MESSAGE"] == "demo.widget: killed" && entry["PRIORITY"] == "4")
        #expect(entry["EXTENSIOND_EVENT"] == "kill" && entry["EXTENSIOND_REASON"] == "pressure" && entry["EXTENSIOND_PROCESS"] == "demo.widget")
        #expect(entry["EXTENSIOND_KILL_BAND"] == "idleExtension" && entry["EXTENSIOND_RSS_BYTES"] == "\(50 << 20)")
        #expect(entry["EXTENSIOND_TRIGGER_TO_DECISION_US"] == "250" && entry["EXTENSIOND_DECISION_TO_SIGNAL_US"] == "50")
        #expect(entry["EXTENSIOND_SIGNAL_TO_EMPTY_US"] == "3000" && entry["EXTENSIOND_PSI_SOME_AVG10"] == "1.5")
        #expect(entry["EXTENSIOND_BUDGET_BYTES"] == "\(1 << 30)" && entry["EXTENSIOND_SEQUENCE"] == "7")
        #expect(entry["EXTENSIOND_BELOW_TO_SIGNAL_US"] == "400" && entry["EXTENSIOND_GROWTH_BYTES"] == "\(20 << 20)")
    }

    @Test func everyKindHasItsOwnValidMessageID() {
        let ids = EventKind.allCases.map(EventJournal.messageID)
        #expect(Set(ids).count == EventKind.allCases.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
        let exit = EventJournal.entry(
            EventRecord(sequence: 1, timeMs: 0, kind: .exit, name: "a", message: "m"), figures: [("PID", "42"), ("EXIT_STATUS", "3")])
        #expect(exit["EXTENSIOND_PID"] == "42" && exit["EXTENSIOND_EXIT_STATUS"] == "3" && exit["PRIORITY"] == "6")
    }

    @Test func fieldNamesFollowTheJournalsRules() {
        for valid in ["MESSAGE", "EXTENSIOND_PID", "A1_B"] { #expect(JournalEntry.isValidName(valid), "\(valid)") }
        for invalid in ["", "_PID", "lower", "WITH-DASH", String(repeating: "A", count: 65)] {
            #expect(!JournalEntry.isValidName(invalid), "\(invalid)")
        }
    }

    @Test func theOutputLogSendsLinesToTheJournalAndWritesFilesOnlyWhenAsked() throws {
        let directory = try TemporaryDirectory()
        let log = OutputLog(directory: directory.path, name: "demo", maxSize: 1 << 20, files: 1)
        let journal = RecordingJournal()
        log.journal = OutputJournal(journal: journal, name: "demo", kind: .app)
        log.writesFiles = false
        Array("one\ntwo".utf8).withUnsafeBytes { log.append($0, from: .stderr) }
        log.flush(.stderr)
        #expect(journal.entries.map { $0["MESSAGE"] } == ["one", "two"])
        #expect(journal.entries.allSatisfy { $0["PRIORITY"] == "4" })
        #expect(log.lastLines(10).isEmpty)
        log.writesFiles = true
        Array("three\n".utf8).withUnsafeBytes { log.append($0, from: .stdout) }
        #expect(journal.entries.last?["PRIORITY"] == "6")
        #expect(log.lastLines(10).map { $0.text.split(separator: " ").last } == ["three"])
    }
}

/// Keeps what would have gone to the journal.
final class RecordingJournal: JournalWriting {
    private(set) var entries: [JournalEntry] = []
    func send(_ entry: JournalEntry) { entries.append(entry) }
}
