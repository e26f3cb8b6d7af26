/// Where a process's stdout and stderr lines go (`output = "file" | "journal" | "both"`).
public enum OutputDestination: String, Sendable, Equatable, CaseIterable {
    /// `<state_dir>/logs/NAME.log` and `NAME.stderr.log` only.
    case file
    /// The systemd journal only (`supervisorctl tail` then has nothing to show).
    case journal
    /// Both.
    case both

    /// Whether lines are written to the log files.
    public var writesFiles: Bool { self != .journal }
    /// Whether lines are sent to the journal.
    public var sendsToJournal: Bool { self != .file }

    /// The default: `both` for a systemd service, `file` otherwise.
    public static func defaultFor(systemdService: Bool) -> OutputDestination {
        systemdService ? .both : .file
    }
}
