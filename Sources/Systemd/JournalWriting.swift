/// Where journal entries go: the real journal (``SystemdJournal``) or a test's recorder.
public protocol JournalWriting: AnyObject {
    /// Sends one entry; a journal that cannot take it loses it (the journal is a copy,
    /// never the only record, and must not stall the daemon).
    func send(_ entry: JournalEntry)
}
