import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// A `RefreshEngine<Int>` in virtual time, with a seeded random source and
/// the single timer the daemon would keep for it.
struct EngineDriver {
    var engine: RefreshEngine<Int>
    var random: SeededRandom
    /// The timer as the actions left it.
    private(set) var timer: Instant?

    init(_ parameters: RefreshParameters = RefreshParameters(), seed: UInt64 = 1, now: Instant = .at(0)) {
        engine = RefreshEngine(parameters: parameters, now: now)
        random = SeededRandom(seed: seed)
    }

    /// Feeds `event` at `now`, keeps the timer as the actions say, returns the actions.
    @discardableResult
    mutating func send(_ event: RefreshEvent<Int>, at now: Instant) -> [RefreshAction<Int>] {
        if case .timerFired = event { timer = nil }
        let actions = engine.handle(event, at: now, using: &random)
        for case .armTimer(let instant) in actions {
            timer = instant
        }
        return actions
    }

    /// Sends `event`, which must start an update, and returns that update.
    mutating func start(_ event: RefreshEvent<Int>, at now: Instant) throws -> UpdateRequest {
        let actions = send(event, at: now)
        return try #require(actions.startedUpdates().first, "\(event) at \(now) started no update: \(actions)")
    }

    /// Fires the armed timer at its instant; returns that instant and the actions.
    mutating func fireTimer() throws -> (at: Instant, actions: [RefreshAction<Int>]) {
        let instant = try #require(timer, "no timer armed")
        return (instant, send(.timerFired, at: instant))
    }
}

extension Array {
    /// The update requests among these actions.
    func startedUpdates<Payload>() -> [UpdateRequest] where Element == RefreshAction<Payload> {
        compactMap { if case .startUpdate(let request) = $0 { request } else { nil } }
    }

    /// The pull answers among these actions.
    func pullAnswers<Payload>() -> [PullAnswer<Payload>] where Element == RefreshAction<Payload> {
        compactMap { if case .answer(let answer) = $0 { answer } else { nil } }
    }
}
