import ExtensiondTestSupport
import Foundation
import Systemd
import Testing

/// `sd_journal_sendv` has journald's socket path built in: what the daemon's entries look
/// like there is tested through a daemon in its own mount namespace (IntegrationTests'
/// `JournalTests`); here, what happens without a journal.
@Suite struct JournalProtocolTests {
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/run/systemd/journal/socket"), "journald runs here"))
    func anEntryForAJournalThatIsNotRunningIsCountedAsLost() {
        let journal = SystemdJournal()
        journal.send(JournalEntry(message: "lost", priority: .info))
        #expect(journal.failures == 1)
    }
}
