import DaemonSupport
import Glibc
import Logging

/// Writes log records to stderr: with journald priority prefixes (`<3>`…`<7>`) under
/// systemd, or with a timestamp and level for a developer's terminal; each record also
/// goes to `ring` (`supervisorctl maintail`), timestamped.
public struct JournalLogHandler: LogHandler {
    public enum Format: Sendable { case journald, terminal }

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let format: Format
    private let ring: DaemonLogRing?

    public init(label: String, format: Format, ring: DaemonLogRing? = nil) {
        self.label = label
        self.format = format
        self.ring = ring
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var text = event.message.description
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        if !merged.isEmpty {
            text += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        text = DaemonLogRing.bounded(text)
        let stamped = "\(WallClock.iso8601()) \(event.level) " + text
        ring?.append(stamped)
        var line =
            switch format {
            case .journald: "<\(Self.priority(event.level))>" + text
            case .terminal: stamped
            }
        line += "\n"
        _ = line.utf8.withContiguousStorageIfAvailable { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// syslog priorities, as journald reads them from a `<N>` prefix.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
