import ControlProtocol
import Systemd

/// Sends one process's output lines to the journal, each as an entry a reader can find
/// by `journalctl SYSLOG_IDENTIFIER=NAME` or `EXTENSIOND_PROCESS=NAME`; stderr lines at
/// warning priority, stdout lines at info.
package final class OutputJournal {
    private let journal: JournalWriting
    private let name: String
    private let kind: ProcessKind

    package init(journal: JournalWriting, name: String, kind: ProcessKind) {
        self.journal = journal
        self.name = name
        self.kind = kind
    }

    func send(_ message: String, from stream: StandardStream) {
        journal.send(Self.entry(message, from: stream, name: name, kind: kind))
    }

    static func entry(_ message: String, from stream: StandardStream, name: String, kind: ProcessKind) -> JournalEntry {
        var entry = JournalEntry(message: message, priority: stream == .stderr ? .warning : .info)
        entry.add("SYSLOG_IDENTIFIER", name)
        entry.add("EXTENSIOND_PROCESS", name)
        entry.add("EXTENSIOND_KIND", kind.rawValue)
        entry.add("EXTENSIOND_STREAM", stream.rawValue)
        return entry
    }
}
