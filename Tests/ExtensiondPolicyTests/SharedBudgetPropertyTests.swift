import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// Several engines of one extension (its display modes and instances) handed one budget
/// around each event, as the daemon does, over random pulls, visibility changes and
/// timelines in virtual time: together they never spend more than the budget, and each
/// keeps its own single flight and pull cooldown.
@Suite struct SharedBudgetPropertyTests {
    @Test(arguments: seeds(150))
    func enginesSharingABudgetNeverOverspend(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &* 104_729)
        let parameters = RefreshParameters.random(using: &random)
        var drivers = (0..<Int.random(in: 2...4, using: &random)).map { EngineDriver(parameters, seed: seed &+ UInt64($0)) }
        var budget = drivers[0].engine.budget
        var now = Instant.at(0)
        var nextEvent = Instant.at(0)
        var answers: [(at: Instant, slot: Int, id: UpdateID)] = []
        var tokensTaken: [Instant] = []
        var token: UInt64 = 0
        let end = Instant.at(3 * 86_400)

        while now < end {
            // The earliest of: a slot's timer, an answer, the next host event (timers first on ties).
            let timer = drivers.indices.compactMap { index in drivers[index].timer.map { ($0, index) } }.min { $0.0 < $1.0 }
            let answer = answers.indices.min { answers[$0].at < answers[$1].at }
            let slot: Int
            let event: RefreshEvent<Int>
            if let timer, timer.0 <= nextEvent, answer.map({ timer.0 <= answers[$0].at }) ?? true {
                (now, slot, event) = (timer.0, timer.1, .timerFired)
            } else if let answer, answers[answer].at <= nextEvent {
                let due = answers.remove(at: answer)
                let timeline = (1...Int.random(in: 1...5, using: &random)).map {
                    TimelineSnapshot(payload: $0, date: due.at + .seconds(Int64($0) * Int64.random(in: 1...600, using: &random)))
                }
                let result: UpdateResult<Int> = Bool.random(using: &random) ? .newData(0, timeline: timeline) : .noData
                (now, slot, event) = (due.at, due.slot, .updateFinished(due.id, result))
            } else {
                now = nextEvent
                nextEvent = now + .seconds(Int64.random(in: 1...3_600, using: &random))
                slot = Int.random(in: 0..<drivers.count, using: &random)
                token += 1
                event =
                    Int.random(in: 0..<4, using: &random) == 0
                    ? .visibilityChanged(shown: Bool.random(using: &random))
                    : .pull(PullToken(token), waits: Bool.random(using: &random))
            }
            let before = drivers[slot].engine
            drivers[slot].engine.budget = budget
            let tokensBefore = budget.tokens(at: now)
            let actions = drivers[slot].send(event, at: now)
            budget = drivers[slot].engine.budget
            let tokensAfter = budget.tokens(at: now)
            let context = "seed \(seed) slot \(slot) at \(now) on \(event)"

            #expect(tokensAfter == tokensBefore || tokensAfter == tokensBefore - 1, "\(context)")
            if tokensAfter < tokensBefore { tokensTaken.append(now) }
            for request in actions.startedUpdates() {
                #expect(before.updateInFlight == nil, "\(context): two updates in flight for one slot")
                if request.reason == .pull, let last = before.record.schedule.lastAttemptAt, before.updateInFlight == nil {
                    #expect(now >= last + parameters.pullCooldown, "\(context): within pull_cooldown")
                }
                if request.reason == .schedule { #expect(tokensAfter == tokensBefore - 1, "\(context): a refresh without a token") }
                answers.append((now + .seconds(Int64.random(in: 0...(parameters.deadline.components.seconds - 1), using: &random)), slot, request.id))
            }
        }
        // No 24-hour window holds more tokens than burst + daily budget, over all slots together.
        var windowStart = 0
        for (index, taken) in tokensTaken.enumerated() {
            while taken - tokensTaken[windowStart] >= .seconds(86_400) { windowStart += 1 }
            #expect(index - windowStart + 1 <= parameters.budgetBurst + parameters.dailyBudget, "seed \(seed)")
        }
    }
}
