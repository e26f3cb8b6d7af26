/// Why a run of a supervised process ended, or is being ended.
///
/// The raw value is the text users and peers see: the `reason` of `exit`, `kill` and
/// `restart` events, of a host's `extensionTerminated`, and the key of the kill counters
/// in `stats` and the metrics (docs/PROTOCOL.md, docs/METRICS.md).
public enum StopReason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    // Stops the daemon asks for: `terminate` or SIGTERM, then SIGKILL after `stop_timeout`.

    /// `supervisorctl stop` or `restart`.
    case manual
    /// The daemon is shutting down.
    case shutdown
    /// A reload removed it from the configuration.
    case removed
    /// `supervisorctl update` restarts it under its changed definition.
    case changed
    /// An extension that served nothing for `idle_exit`.
    case idle
    /// A suspended extension ended at the `pressure.warn` watermark, before `low` would kill
    /// it (or an idle one due for suspension while the tree is past `warn`).
    case trim
    /// An extension closed its end of fd 3 and did not exit: it can no longer be served.
    case channelClosed = "closed"

    // Kills the daemon decides: SIGKILL to the whole run at once.

    /// No `ready` within `start_timeout`, or no answer within the update's deadline.
    case deadline
    /// It broke the wire protocol.
    case protocolViolation = "protocol"
    /// Memory above `pressure.low`, or a PSI trigger.
    case pressure
    /// Memory above `pressure.critical`.
    case critical

    // Ends the daemon did not ask for.

    /// The kernel OOM killer acted inside its cgroup.
    case oom
    /// It exited on its own.
    case exited
    /// It could not be launched.
    case launchFailed = "launch-failed"

    public var description: String { rawValue }

    /// The daemon wanted the run to end: afterwards the process rests (`stopped`) instead
    /// of being restarted as after a crash.
    public var isRequested: Bool {
        switch self {
        case .manual, .shutdown, .removed, .changed, .idle, .trim, .channelClosed, .deadline, .protocolViolation, .pressure, .critical: true
        case .oom, .exited, .launchFailed: false
        }
    }

    /// A kill by the memory-pressure policy.
    public var isPressureKill: Bool {
        self == .pressure || self == .critical
    }

    /// The reason of a pressure kill decided at `level`.
    public static func pressureKill(at level: PressureLevel) -> StopReason {
        level == .critical ? .critical : .pressure
    }

    /// The reasons the kill counters exist for from the start (at 0).
    public static let countedKills: [StopReason] = [.pressure, .critical, .oom, .deadline, .protocolViolation]
}
