import ControlProtocol
import Systemd

/// Sends the daemon's events to the journal as structured entries: a fixed `MESSAGE_ID`
/// per kind (docs/METRICS.md lists them), the process, the reason, and the event's figures
/// as `EXTENSIOND_*` fields, so that `journalctl MESSAGE_ID=…` finds every kill or OOM.
package final class EventJournal {
    private let journal: JournalWriting

    package init(journal: JournalWriting) {
        self.journal = journal
    }

    func send(_ event: EventRecord, figures: [(name: String, value: String)]) {
        journal.send(Self.entry(event, figures: figures))
    }

    /// The fixed id of each kind of event (128 bits, made once with a random generator).
    static func messageID(_ kind: EventKind) -> String {
        switch kind {
        case .launch: "1f231bb874ca4ef4b1aac0066bb292cb"
        case .ready: "0ff2b3003945441dafdf392313f0e716"
        case .suspend: "66df335c09534c219c9597159dfc0c97"
        case .reclaim: "33ce6b98d99c45a5b7cc53a157a31285"
        case .exit: "105e6a62655848668d93ac65e47aba4b"
        case .kill: "d29aa78288524e81afbb51efb686837b"
        case .restart: "f26fa266b92b43b4bd3ceeb0b7d30fb0"
        case .fatal: "eb5c8f3f776841a98941c728dd07cc25"
        case .oom: "376308d45b9d44108f111f8ed08b8959"
        case .memoryWarning: "c25ef604265a49d691a8bf136e5726aa"
        case .cleanup: "2cc926c408b24f61ad2582a972381bb6"
        case .reload: "b9ea5da05b6b4be49d0a486e74c885e5"
        case .error: "5c9f25db84f54429a9b5f4366ed0b3e7"
        }
    }

    static func entry(_ event: EventRecord, figures: [(name: String, value: String)]) -> JournalEntry {
        let priority: JournalPriority =
            switch event.kind {
            case .error: .error
            case .kill, .oom, .fatal: .warning
            case .memoryWarning, .restart: .notice
            default: .info
            }
        var entry = JournalEntry(message: (event.name.map { $0 + ": " } ?? "") + event.message, priority: priority)
        entry.add("MESSAGE_ID", messageID(event.kind))
        entry.add("SYSLOG_IDENTIFIER", "extensiond")
        entry.add("EXTENSIOND_EVENT", event.kind.rawValue)
        entry.add("EXTENSIOND_SEQUENCE", String(event.sequence))
        if let name = event.name { entry.add("EXTENSIOND_PROCESS", name) }
        if let reason = event.reason { entry.add("EXTENSIOND_REASON", reason) }
        if let kill = event.kill {
            entry.add("EXTENSIOND_KILL_BAND", kill.band)
            if let bytes = kill.rssBytes { entry.add("EXTENSIOND_RSS_BYTES", String(bytes)) }
            if let bytes = kill.growthBytes { entry.add("EXTENSIOND_GROWTH_BYTES", String(bytes)) }
            if let bytes = kill.treeUsageBytes { entry.add("EXTENSIOND_TREE_USAGE_BYTES", String(bytes)) }
            if let bytes = kill.budgetBytes { entry.add("EXTENSIOND_BUDGET_BYTES", String(bytes)) }
            if let psi = kill.psiSomeAvg10 { entry.add("EXTENSIOND_PSI_SOME_AVG10", String(psi)) }
            entry.add("EXTENSIOND_TRIGGER_TO_DECISION_US", String(kill.decisionUs - min(kill.triggerUs, kill.decisionUs)))
            entry.add("EXTENSIOND_DECISION_TO_SIGNAL_US", String(kill.signalUs - min(kill.decisionUs, kill.signalUs)))
            if let empty = kill.emptyUs { entry.add("EXTENSIOND_SIGNAL_TO_EMPTY_US", String(empty - min(kill.signalUs, empty))) }
            if let release = kill.memoryRelease { entry.add("EXTENSIOND_MEMORY_RELEASE", release) }
            if let below = kill.lastBelowLowUs { entry.add("EXTENSIOND_BELOW_TO_SIGNAL_US", String(kill.signalUs - min(below, kill.signalUs))) }
        }
        for figure in figures { entry.add("EXTENSIOND_" + figure.name, figure.value) }
        return entry
    }
}
