import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// The refresh rules checked over thousands of random event sequences in
/// virtual time: random parameters, random pull traffic, an app that asks for
/// reloads, hosts that show and hide the widget, an extension that answers late,
/// fails, hints and exits at random.
@Suite struct RefreshEnginePropertyTests {
    @Test(arguments: seeds(200))
    func randomTrafficKeepsEveryGuarantee(seed: UInt64) throws {
        var world = World(seed: seed)
        try world.run(for: .seconds(5 * 86_400))
    }

    /// The daemon's shortcut for a fresh pull (``RefreshEngine/freshState(at:)``) is the
    /// general path's one cached answer, changing nothing, at any time: also with timeline
    /// entries due and the timer not fired yet (the daemon's loop may be late).
    @Test(arguments: seeds(100))
    func aFreshPullsShortcutIsTheGeneralPath(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var driver = EngineDriver(.random(using: &random), seed: seed)
        var now = Instant.at(0)
        var (shortcuts, entriesDue) = (0, 0)
        for token in 0..<300 {
            now = now + .seconds(Int64.random(in: 0...900, using: &random))
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                guard let update = driver.engine.updateInFlight else {
                    driver.send(.manualRefresh, at: now)
                    continue
                }
                var date = now - .seconds(Int64.random(in: -60...120, using: &random))
                let timeline = (0..<Int.random(in: 0...8, using: &random)).map { index in
                    date = date + .seconds(Int64.random(in: 1...1_800, using: &random))
                    return TimelineSnapshot(payload: index, date: date)
                }
                let result: UpdateResult<Int> = Bool.random(using: &random) ? .newData(token, timeline: timeline) : .failed("boom")
                driver.send(.updateFinished(update.id, result), at: now)
            case 1:
                if let timer = driver.timer, timer <= now { driver.send(.timerFired, at: now) }
            default:
                let before = driver.engine
                var probe = before
                let shortcut = probe.freshState(at: now)
                let due = before.record.timeline.first.map { $0.date <= now } ?? false
                if due { entriesDue += 1 }
                let actions = driver.send(.pull(PullToken(UInt64(token)), waits: Bool.random(using: &random)), at: now)
                if let shortcut {
                    shortcuts += 1
                    #expect(actions == [.answer(PullAnswer(pulls: [PullToken(UInt64(token))], delivery: .cached, result: .cached, state: shortcut))])
                    #expect(driver.engine.record == before.record && driver.engine.wakeTime == before.wakeTime)
                } else {
                    #expect(!before.state(at: now).isFresh || due, "seed \(seed) at \(now): a fresh pull missed the shortcut")
                }
            }
        }
        #expect(shortcuts > 0 && entriesDue > 0, "seed \(seed): \(shortcuts) shortcuts, \(entriesDue) pulls with entries due")
    }

    /// Without `noData` in a row the interval is `interval` in whole nanoseconds, never
    /// below zero, whatever `maxInterval` is (every pull asks, so it skips the doubling).
    @Test func theIntervalWithoutNoDataInARow() {
        var random = SeededRandom(seed: 5)
        let attoseconds = Duration(secondsComponent: 0, attosecondsComponent: 999_999_999)
        // (interval, whole nanoseconds expected)
        let extremes: [(Duration, Int64)] = [
            (.zero, 0), (.nanoseconds(1), 1), (.nanoseconds(-1), 0), (.seconds(-60), 0), (.seconds(60), 60_000_000_000),
            (.nanoseconds(Int64.max), .max), (.seconds(Int64.max), .max), (.seconds(Int64.min), 0),
            (.nanoseconds(7) + attoseconds, 7), (attoseconds, 0),
        ]
        let caps: [Duration] = [.zero, .seconds(-1), .nanoseconds(1), .seconds(3_600), .seconds(Int64.max)]
        for _ in 0..<2_000 {
            var parameters = RefreshParameters.random(using: &random)
            var expected = parameters.interval.components.seconds * 1_000_000_000
            if Bool.random(using: &random) { (parameters.interval, expected) = extremes.randomElement(using: &random)! }
            if Bool.random(using: &random) { parameters.maxInterval = caps.randomElement(using: &random)! }
            for none in [0, -1, Int.min] {
                #expect(parameters.stretchedInterval(noDataInARow: none) == .nanoseconds(expected), "\(parameters)")
            }
            // One doubling is never below it.
            #expect(parameters.stretchedInterval(noDataInARow: 1) >= .nanoseconds(expected), "\(parameters)")
        }
    }

    /// K pulls while no answer can come from the cache: one update, K identical answers.
    @Test(arguments: seeds(300))
    func overlappingPullsMakeOneCallAndGetOneResult(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let parameters = RefreshParameters.random(using: &random)
        var driver = EngineDriver(parameters, seed: seed)
        let pullCount = Int.random(in: 1...40, using: &random)

        let first = try driver.start(.pull(PullToken(0)), at: .at(0))
        let window = first.deadline.nanoseconds
        for token in 1..<pullCount {
            let at = Instant(nanoseconds: Int64.random(in: 0..<window, using: &random))
            let joined = driver.send(.pull(PullToken(UInt64(token))), at: at)
            #expect(joined.isEmpty, "seed \(seed)")
        }
        let finishing: [RefreshAction<Int>]
        switch Int.random(in: 0..<4, using: &random) {
        case 0: finishing = driver.send(.updateFinished(first.id, .newData(7)), at: first.deadline - .nanoseconds(1))
        case 1: finishing = driver.send(.updateFinished(first.id, .noData), at: first.deadline - .nanoseconds(1))
        case 2: finishing = driver.send(.updateFinished(first.id, .failed("boom")), at: first.deadline - .nanoseconds(1))
        default: finishing = try driver.fireTimer().actions
        }
        #expect(finishing.startedUpdates().isEmpty)
        let answers = finishing.pullAnswers()
        let answered = answers.flatMap(\.pulls)
        #expect(answered.sorted { $0.rawValue < $1.rawValue } == (0..<pullCount).map { PullToken(UInt64($0)) })
        #expect(Set(answers.map(\.result)).count == 1)
        #expect(Set(answers.map { $0.state.snapshot?.version }).count == 1)
    }
}

extension RefreshEvent {
    /// A host starts showing the widget.
    fileprivate var isShowing: Bool {
        if case .visibilityChanged(shown: true) = self { true } else { false }
    }
}

extension RefreshParameters {
    /// Parameters anywhere in a plausible range, including the corner cases
    /// (no jitter, no budget, minInterval equal to the interval).
    static func random(using random: inout SeededRandom) -> RefreshParameters {
        func seconds(_ range: ClosedRange<Int64>) -> Duration { .seconds(Int64.random(in: range, using: &random)) }
        let interval = seconds(60...7_200)
        let minInterval = Duration.seconds(Int64.random(in: 0...interval.components.seconds, using: &random))
        let backoffBase = seconds(1...300)
        return RefreshParameters(
            interval: interval,
            minInterval: minInterval,
            jitter: Bool.random(using: &random) ? nil : seconds(0...600),
            maxInterval: interval + seconds(0...21_600),
            pullCooldown: seconds(0...60),
            deadline: seconds(1...30),
            dailyBudget: Int.random(in: 0...100, using: &random),
            budgetBurst: Int.random(in: 0...10, using: &random),
            backoffBase: backoffBase,
            backoffMax: backoffBase + seconds(0...7_200)
        )
    }
}

/// A daemon and an extension around one engine, in virtual time.
private struct World {
    let seed: UInt64
    var random: SeededRandom
    let parameters: RefreshParameters
    var driver: EngineDriver
    var now = Instant.at(0)

    /// Answers the extension will send, by the time it sends them (late ones included).
    var plannedAnswers: [(at: Instant, id: UpdateID)] = []
    var nextPull = Instant.at(0)
    var nextManualRefresh = Instant.at(0)
    var nextExit = Instant.at(0)
    var nextReload = Instant.at(0)
    var nextVisibilityChange = Instant.at(0)
    var nextToken: UInt64 = 0
    var unansweredPulls: Set<PullToken> = []
    /// Pulls answered from an expired snapshot, waiting for the outcome of its update.
    var revalidatingPulls: Set<PullToken> = []
    var updateStarts: [Instant] = []
    var scheduledStarts: [Instant] = []
    /// When budget tokens were taken (scheduled refreshes and reloads).
    var tokensTaken: [Instant] = []

    init(seed: UInt64) {
        self.seed = seed
        random = SeededRandom(seed: seed &* 7919)
        parameters = .random(using: &random)
        driver = EngineDriver(parameters, seed: seed)
        nextPull = now + pullGap()
        nextManualRefresh = now + rareGap()
        nextExit = now + rareGap()
        nextReload = now + reloadGap()
        nextVisibilityChange = now + rareGap()
    }

    mutating func run(for length: Duration) throws {
        let end = now + length
        while now < end {
            try step()
        }
        #expect(unansweredPulls.isEmpty || driver.engine.updateInFlight != nil, "seed \(seed): pulls never answered")
        #expect(revalidatingPulls.isEmpty || driver.engine.updateInFlight != nil, "seed \(seed): revalidations never ended")
        checkBudgetWindows()
    }

    private mutating func step() throws {
        let answer = plannedAnswers.indices.min { plannedAnswers[$0].at < plannedAnswers[$1].at }
        // On ties the timer goes first, as a deadline must win over a simultaneous event.
        let candidates: [(Instant, Int)] = [
            driver.timer.map { ($0, 0) },
            answer.map { (plannedAnswers[$0].at, 1) },
            (nextPull, 2), (nextManualRefresh, 3), (nextExit, 4), (nextReload, 5), (nextVisibilityChange, 6),
        ].compactMap { $0 }
        let (at, kind) = try #require(candidates.min { ($0.0, $0.1) < ($1.0, $1.1) })
        now = at

        let before = driver.engine
        let event: RefreshEvent<Int>
        switch kind {
        case 0:
            event = .timerFired
        case 1:
            let id = plannedAnswers.remove(at: try #require(answer)).id
            event = .updateFinished(id, randomResult(), reload: randomHint())
        case 2:
            event = .pull(PullToken(nextToken), waits: Bool.random(using: &random))
            unansweredPulls.insert(PullToken(nextToken))
            nextToken += 1
            nextPull = now + pullGap()
        case 3:
            event = .manualRefresh
            nextManualRefresh = now + rareGap()
        case 4:
            event = .extensionExited(reason: "crashed")
            nextExit = now + rareGap()
        case 5:
            event = .reload
            nextReload = now + reloadGap()
        default:
            event =
                Bool.random(using: &random)
                ? .visibilityChanged(shown: Bool.random(using: &random)) : .memoryHold(Bool.random(using: &random))
            nextVisibilityChange = now + rareGap()
        }
        let actions = driver.send(event, at: now)
        try check(event, actions: actions, before: before)
        for request in actions.startedUpdates() {
            plannedAnswers.append((request.deadline - parameters.deadline + answerDelay(), request.id))
        }
    }

    private mutating func check(_ event: RefreshEvent<Int>, actions: [RefreshAction<Int>], before: RefreshEngine<Int>) throws {
        let after = driver.engine
        let starts = actions.startedUpdates()
        let context = "seed \(seed) at \(now) on \(event)"

        // The daemon's timer is exactly the engine's wake-up time; nothing outlives its deadline.
        #expect(driver.timer == after.wakeTime, "\(context)")
        if let update = after.updateInFlight { #expect(now < update.deadline, "\(context)") }

        // Single flight (a reload may follow the update that just finished).
        #expect(starts.count <= 1, "\(context)")
        if !starts.isEmpty { #expect(before.updateInFlight == nil || after.updateInFlight?.reason == .schedule, "\(context)") }

        // Every token taken is counted: the bucket only goes down by one on a scheduled
        // start or an accepted reload.
        let tokensBefore = before.record.schedule.bucket.tokens(at: now)
        let tokensAfter = after.record.schedule.bucket.tokens(at: now)
        #expect(tokensAfter == tokensBefore || tokensAfter == tokensBefore - 1, "\(context)")
        if tokensAfter < tokensBefore { tokensTaken.append(now) }

        for request in starts {
            if request.reason == .schedule {
                switch event {
                case .timerFired, .visibilityChanged(shown: true), .memoryHold(false):
                    #expect(before.isShown || event.isShowing, "\(context): a hidden widget refreshed by the schedule")
                    #expect(!after.isHeldForMemory, "\(context): a refresh held for memory started by the schedule")
                    #expect(before.updateInFlight == nil, "\(context)")
                    #expect(tokensAfter == tokensBefore - 1, "\(context): a scheduled start without a token")
                    if let previous = updateStarts.last {
                        #expect(now - previous >= parameters.minInterval, "\(context): too close to \(previous)")
                    }
                case .reload:
                    #expect(tokensAfter == tokensBefore - 1, "\(context): a reload without a token")
                case .updateFinished:
                    #expect(before.updateInFlight != nil && after.updateInFlight != nil, "\(context): a follow-up from nowhere")
                default:
                    Issue.record("\(context): scheduled start on another event")
                }
                scheduledStarts.append(now)
            }
            updateStarts.append(now)
        }

        // Pushes go up one version at a time; timeline entries only once due.
        var pushedVersion = before.record.snapshot?.version ?? 0
        for case .pushSnapshot(let snapshot) in actions {
            #expect(snapshot.version == pushedVersion + 1, "\(context)")
            if let date = snapshot.timelineDate { #expect(date <= now, "\(context): an entry before its date") }
            pushedVersion = snapshot.version
        }
        #expect(pushedVersion == after.record.snapshot?.version ?? 0, "\(context): a new version not pushed")
        if case .timerFired = event, starts.isEmpty {
            #expect(tokensAfter == tokensBefore, "\(context): a timeline spent budget")
        }

        // Every pull is answered exactly once.
        for answer in actions.pullAnswers() {
            for pull in answer.pulls {
                #expect(unansweredPulls.remove(pull) != nil, "\(context): \(pull) answered twice")
            }
            #expect((answer.delivery == .cached) == (answer.result == .cached), "\(context)")
            if answer.isRevalidating {
                #expect(answer.delivery == .cached && !answer.state.isFresh && answer.state.snapshot != nil, "\(context)")
                for pull in answer.pulls { revalidatingPulls.insert(pull) }
            }
        }
        // Every revalidation ends exactly once, with the outcome of the update that ended.
        for case .revalidated(let answer) in actions {
            for pull in answer.pulls {
                #expect(revalidatingPulls.remove(pull) != nil, "\(context): \(pull) revalidated twice or never expired")
            }
            #expect(answer.result != .cached, "\(context)")
        }

        switch event {
        case .pull(let token, let waits):
            let fresh = before.state(at: now).isFresh
            let cooling = before.record.schedule.lastAttemptAt.map { now < $0 + parameters.pullCooldown } ?? false
            let revalidates = !waits && before.record.snapshot != nil
            let answered = actions.pullAnswers()
            // The daemon's shortcut for a fresh snapshot is exactly this general path.
            var probe = before
            if let state = probe.freshState(at: now) {
                #expect(actions == [.answer(PullAnswer(pulls: [token], delivery: .cached, result: .cached, state: state))], "\(context)")
                #expect(
                    after.record == before.record && probe.record == before.record && after.wakeTime == before.wakeTime,
                    "\(context): a fresh pull changed the engine")
            } else if fresh {
                #expect(before.record.timeline.first.map { $0.date <= now } == true, "\(context): a fresh pull missed the shortcut")
            }
            if fresh || (before.updateInFlight == nil && cooling) {
                #expect(starts.isEmpty, "\(context): the extension was called")
                #expect(answered.map(\.pulls) == [[token]] && answered.allSatisfy { !$0.isRevalidating }, "\(context)")
            } else if before.updateInFlight != nil {
                #expect(starts.isEmpty, "\(context)")
                if revalidates {
                    #expect(answered.map(\.isRevalidating) == [true], "\(context): an expired snapshot is answered at once")
                } else {
                    #expect(actions.isEmpty, "\(context): a joining pull must wait")
                }
            } else {
                #expect(starts.map(\.reason) == [.pull], "\(context)")
                #expect(answered.map(\.isRevalidating) == (revalidates ? [true] : []), "\(context)")
            }
        case .updateFinished(let id, let result, _):
            guard id == before.updateInFlight?.id else {
                #expect(actions.isEmpty && after.record == before.record, "\(context): a late answer changed something")
                #expect(after.updateInFlight == before.updateInFlight, "\(context)")
                return
            }
            let oldVersion = before.record.snapshot?.version ?? 0
            let newVersion = after.record.snapshot?.version ?? 0
            switch result {
            case .newData(let payload, let timeline):
                // Entries already due are current at once, one version each.
                let due = timeline.prefix { $0.date <= now }
                #expect(newVersion == oldVersion + 1 + UInt64(due.count), "\(context)")
                #expect(after.record.snapshot?.payload == (due.last?.payload ?? payload), "\(context)")
                #expect(after.record.timeline == Array(timeline.dropFirst(due.count)), "\(context)")
            case .noData, .failed:
                #expect(newVersion == oldVersion && after.record.snapshot == before.record.snapshot, "\(context)")
            }
            // A reload that follows replans when it finishes.
            if case .failed = result, starts.isEmpty { checkRetry(after: after, context: context) }
        case .timerFired:
            if actions.contains(where: { if case .killForDeadline = $0 { true } else { false } }) {
                #expect(before.updateInFlight.map { now >= $0.deadline } == true, "\(context)")
                #expect(after.record.snapshot == before.record.snapshot, "\(context)")
                checkRetry(after: after, context: context)
            }
        case .reload:
            let answers = actions.compactMap { if case .reloadAnswer(let answer) = $0 { answer } else { nil } }
            #expect(answers.count == 1, "\(context)")
            if answers == [.scheduled] {
                let joined = before.updateInFlight != nil && tokensAfter == tokensBefore
                #expect(joined || tokensAfter == tokensBefore - 1, "\(context): scheduled without a token")
                #expect(starts.count == (before.updateInFlight == nil ? 1 : 0), "\(context)")
            } else {
                #expect(tokensBefore == 0 && starts.isEmpty, "\(context): refused with a token")
                #expect(after.record == before.record, "\(context): a refusal changed the record")
            }
        case .manualRefresh, .extensionExited, .reconfigured:
            #expect(after.record.snapshot == before.record.snapshot, "\(context)")
        case .memoryHold(let held):
            #expect(after.isHeldForMemory == held && after.record.snapshot == before.record.snapshot, "\(context)")
            // Only a release, of a shown widget with a refresh that came due meanwhile, starts one.
            let overdue = before.record.schedule.nextRefresh.map { now >= $0 } ?? false
            if !starts.isEmpty { #expect(!held && before.isHeldForMemory && after.isShown && overdue, "\(context)") }
            if held {
                let wake = [after.updateInFlight?.deadline, after.record.timeline.first?.date].compactMap { $0 }.min()
                #expect(after.wakeTime == wake, "\(context): a held widget's schedule is armed")
                #expect(after.budget.tokens(at: now) >= before.budget.tokens(at: now), "\(context): a hold spent a token")
            }
        case .visibilityChanged(let shown):
            #expect(after.isShown == shown, "\(context)")
            #expect(after.record.snapshot == before.record.snapshot, "\(context)")
            // Only a widget appearing with a refresh that came due while it was hidden starts one.
            let overdue = before.record.schedule.nextRefresh.map { now >= $0 } ?? false
            if !starts.isEmpty { #expect(shown && !before.isShown && !after.isHeldForMemory && overdue, "\(context)") }
            if !shown {
                let wake = [after.updateInFlight?.deadline, after.record.timeline.first?.date].compactMap { $0 }.min()
                #expect(after.wakeTime == wake, "\(context): a hidden widget's schedule is armed")
            }
        }
    }

    /// After a failure the retry is due within the backoff ceiling, or at the minimum interval.
    private func checkRetry(after engine: RefreshEngine<Int>, context: String) {
        let schedule = engine.record.schedule
        guard !schedule.isSuspended else {
            #expect(schedule.nextRefresh == nil, "\(context)")
            return
        }
        guard let next = schedule.nextRefresh, let start = schedule.lastAttemptAt else {
            Issue.record("\(context): no retry planned")
            return
        }
        let floor = start + parameters.minInterval
        let ceiling = parameters.backoff.ceiling(forAttempt: schedule.failuresInARow)
        #expect(next >= max(floor, now) && next <= max(floor, now + ceiling), "\(context): retry at \(next)")
    }

    /// No 24-hour window holds more tokens taken (scheduled refreshes and the app's
    /// reloads) than burst + daily budget, and every scheduled start had its token.
    private func checkBudgetWindows() {
        let day = Duration.seconds(86_400)
        var windowStart = 0
        for (index, taken) in tokensTaken.enumerated() {
            while taken - tokensTaken[windowStart] >= day { windowStart += 1 }
            #expect(index - windowStart + 1 <= parameters.budgetBurst + parameters.dailyBudget, "seed \(seed)")
        }
        #expect(scheduledStarts.count <= tokensTaken.count, "seed \(seed)")
    }

    // MARK: - Random behaviour of hosts and the extension

    private mutating func pullGap() -> Duration {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<7: .milliseconds(Int64.random(in: 0...5_000, using: &random))
        case 7..<9: .seconds(Int64.random(in: 5...300, using: &random))
        default: .seconds(Int64.random(in: 300...10_800, using: &random))
        }
    }

    /// Sometimes in bursts (an app reloading on every change), to exhaust the budget.
    private mutating func reloadGap() -> Duration {
        Int.random(in: 0..<4, using: &random) == 0
            ? .milliseconds(Int64.random(in: 0...2_000, using: &random))
            : .seconds(Int64.random(in: 60...21_600, using: &random))
    }

    private mutating func rareGap() -> Duration {
        .seconds(Int64.random(in: 600...43_200, using: &random))
    }

    /// Mostly in time, sometimes after the deadline (a late answer).
    private mutating func answerDelay() -> Duration {
        let deadline = parameters.deadline.components.seconds * 1000
        let limit = Int.random(in: 0..<5, using: &random) == 0 ? deadline * 2 : deadline - 1
        return .milliseconds(Int64.random(in: 0...limit, using: &random))
    }

    private mutating func randomResult() -> UpdateResult<Int> {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<2: .newData(Int.random(in: 0...1_000, using: &random), timeline: randomTimeline())
        case 2..<4: .newData(Int.random(in: 0...1_000, using: &random))
        case 4..<7: .noData
        default: .failed("failure \(Int.random(in: 0...9, using: &random))")
        }
    }

    /// Up to 20 entries with ascending dates, the first ones sometimes already past.
    private mutating func randomTimeline() -> [TimelineSnapshot<Int>] {
        var date = now - .seconds(Int64.random(in: -60...120, using: &random))
        return (0..<Int.random(in: 0...20, using: &random)).map { index in
            date = date + .seconds(Int64.random(in: 1...3_600, using: &random))
            return TimelineSnapshot(payload: 10_000 + index, date: date)
        }
    }

    private mutating func randomHint() -> ReloadHint {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<6: .atEnd
        case 6..<9: .after(now + .seconds(Int64.random(in: -3_600...10_800, using: &random)))
        default: .never
        }
    }
}
