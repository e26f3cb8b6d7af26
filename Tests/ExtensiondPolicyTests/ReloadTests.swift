import ExtensiondPolicy
import Testing

/// The containing app's `reloadExtensions` (WidgetKit's `reloadTimelines`): each reload
/// spends a budget token, starts an update or follows the one in flight, and is refused
/// once the budget is spent. The random sequences are in RefreshEnginePropertyTests.
@Suite struct ReloadTests {
    private let hour: Int64 = 3600
    private let parameters = RefreshParameters(
        interval: .seconds(600), minInterval: .seconds(300), jitter: .zero,
        dailyBudget: 24, budgetBurst: 2)

    private func answers(_ actions: [RefreshAction<Int>]) -> [ReloadAnswer] {
        actions.compactMap { if case .reloadAnswer(let answer) = $0 { answer } else { nil } }
    }

    @Test func reloadsSpendTheBudgetAndAreRefusedWithoutAToken() throws {
        var driver = EngineDriver(parameters)
        let first = driver.send(.reload, at: .at(0))
        #expect(answers(first) == [.scheduled])
        let update = try #require(first.startedUpdates().first)
        #expect(update.reason == .schedule)
        driver.send(.updateFinished(update.id, .newData(1)), at: .at(1))

        // The second, within min_interval of the first: reloads are bounded by the budget only.
        let second = driver.send(.reload, at: .at(2))
        #expect(answers(second) == [.scheduled] && second.startedUpdates().count == 1)
        driver.send(.updateFinished(try #require(second.startedUpdates().first).id, .noData), at: .at(3))

        // Burst 2 spent; 24 a day is one token an hour, counted from the first take.
        let refused = driver.send(.reload, at: .at(4))
        #expect(answers(refused) == [.refused(nextToken: .at(hour))])
        #expect(refused.startedUpdates().isEmpty)
        #expect(!refused.contains { if case .persist = $0 { true } else { false } }, "a refusal writes nothing")

        let later = driver.send(.reload, at: .at(hour))
        #expect(answers(later) == [.scheduled] && later.startedUpdates().count == 1)
    }

    @Test func aReloadDuringAnUpdateFollowsItOnceItIsAnswered() throws {
        var driver = EngineDriver(parameters)
        let pulled = try driver.start(.pull(PullToken(1)), at: .at(0))

        let joined = driver.send(.reload, at: .at(1))
        #expect(answers(joined) == [.scheduled] && joined.startedUpdates().isEmpty)
        #expect(driver.engine.record.schedule.bucket.tokens(at: .at(1)) == 1)
        // Further reloads join the follow-up without spending.
        #expect(answers(driver.send(.reload, at: .at(2))) == [.scheduled])
        #expect(driver.engine.record.schedule.bucket.tokens(at: .at(2)) == 1)

        let finished = driver.send(.updateFinished(pulled.id, .newData(1)), at: .at(3))
        #expect(finished.pullAnswers().map(\.pulls) == [[PullToken(1)]])
        let followUp = try #require(finished.startedUpdates().first)
        #expect(followUp.reason == .schedule && driver.engine.updateInFlight == followUp)
        #expect(driver.timer == followUp.deadline)
    }

    @Test func aFollowUpIsDroppedWhenTheUpdateMissesItsDeadline() throws {
        var driver = EngineDriver(parameters)
        _ = try driver.start(.pull(PullToken(1)), at: .at(0))
        #expect(answers(driver.send(.reload, at: .at(1))) == [.scheduled])

        let (_, expired) = try driver.fireTimer()
        #expect(expired.contains { if case .killForDeadline = $0 { true } else { false } })
        // The failure's retry takes its place (the process is being killed).
        #expect(expired.startedUpdates().isEmpty && driver.engine.updateInFlight == nil)
        #expect(driver.engine.record.schedule.nextRefresh != nil)
    }

    @Test func aZeroBudgetRefusesForever() throws {
        var driver = EngineDriver(RefreshParameters(dailyBudget: 0, budgetBurst: 0))
        #expect(answers(driver.send(.reload, at: .at(0))) == [.refused(nextToken: nil)])
    }
}
