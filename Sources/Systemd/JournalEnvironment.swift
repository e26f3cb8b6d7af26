/// Whether the daemon runs as a systemd service whose output reaches the journal.
public enum JournalEnvironment {
    /// systemd sets `INVOCATION_ID` for every service it starts and `JOURNAL_STREAM` when
    /// stdout or stderr is connected to the journal; either says so, whatever the flags.
    public static func isSystemdService(_ environment: [String: String]) -> Bool {
        environment["JOURNAL_STREAM"].map { !$0.isEmpty } == true || environment["INVOCATION_ID"].map { !$0.isEmpty } == true
    }
}
