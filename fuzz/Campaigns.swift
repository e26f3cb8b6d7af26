/// What one protocol's campaign did.
struct CampaignResult {
    var messages = 0
    var mutated = 0
    /// Connections made (host.sock, control.sock) or extension runs taken over (fd 3).
    var connections = 0
    var answers = 0
    /// Answers that were errors: a host `error`, a control answer with `ok: false`.
    var errorsAnswered = 0
    /// Connections the daemon closed (a violation ends a connection or kills an extension).
    var closedByDaemon = 0
    /// Kills the daemon counted during the campaign (`stats`, all reasons).
    var kills = 0
    /// Config campaign: reloads and `--check-config` runs that refused the file.
    var reloadsRefused = 0
    var checksRefused = 0
    /// Config campaign: accepted mutated configs that were run (launch, idle, stop).
    var runs = 0
    /// Requests that must be answered and were not; the first few are kept for the report.
    var unanswered = 0
    var unansweredSamples: [String] = []
    var rss: (min: UInt64, max: UInt64) = (0, 0)

    mutating func noteUnanswered(_ line: [UInt8]) {
        unanswered += 1
        if unansweredSamples.count < 5 { unansweredSamples.append(String(decoding: line.prefix(300), as: UTF8.self).debugDescription) }
    }
}

/// Runs the campaigns against one daemon: each sends `budget` messages (or stops at
/// `deadline`), mutating a share of them, and checks the daemon every batch.
struct Campaigns {
    let target: Target
    var mutator: Mutator
    /// When the running campaign stops, whatever its budget (set before each).
    var deadline: ContinuousClock.Instant
    static let batch = 200

    var timeLeft: Bool { ContinuousClock.now < deadline }
}
