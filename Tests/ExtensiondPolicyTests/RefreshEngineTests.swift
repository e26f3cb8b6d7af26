import ExtensiondPolicy
import Testing

#if canImport(FoundationEssentials)
import ExtensiondTestSupport
import FoundationEssentials
#else
import Foundation
#endif

/// Worked examples of the refresh rules with the DESIGN defaults.
@Suite struct RefreshEngineTests {
    let minute: Int64 = 60

    /// A driver whose extension delivered `newData(1)` at 2 s after a first pull at 0.
    func driverWithSnapshot(_ parameters: RefreshParameters = RefreshParameters()) throws -> EngineDriver {
        var driver = EngineDriver(parameters)
        let request = try driver.start(.pull(PullToken(1)), at: .at(0))
        driver.send(.updateFinished(request.id, .newData(1)), at: .at(2))
        return driver
    }

    @Test func aFirstPullStartsAnUpdateAndReceivesItsResult() throws {
        var driver = EngineDriver()
        let started = driver.send(.pull(PullToken(1)), at: .at(0))
        let request = UpdateRequest(id: UpdateID(1), reason: .pull, deadline: .at(10))
        #expect(started == [.startUpdate(request), .persist, .armTimer(.at(10))])

        let finished = driver.send(.updateFinished(request.id, .newData(42)), at: .at(2))
        let snapshot = Snapshot(payload: 42, version: 1, updatedAt: .at(2))
        let state = SnapshotState(snapshot: snapshot, age: .zero, isFresh: true, error: nil)
        let answer = PullAnswer(pulls: [PullToken(1)], delivery: .updated, result: .newData, state: state)
        #expect(finished.prefix(3) == [.answer(answer), .pushSnapshot(snapshot), .persist])
        // Next refresh: the interval minus up to the jitter (3 minutes), from the finish.
        let next = try #require(driver.timer)
        #expect(next >= .at(2 + 27 * minute) && next <= .at(2 + 30 * minute))
        #expect(finished.last == .armTimer(next))
    }

    @Test func aFreshSnapshotAnswersFromTheCache() throws {
        var driver = try driverWithSnapshot()
        let actions = driver.send(.pull(PullToken(2)), at: .at(20 * minute))
        guard case .answer(let answer) = actions.first, actions.count == 1 else {
            Issue.record("expected one cached answer, got \(actions)")
            return
        }
        #expect(answer.delivery == .cached && answer.result == .cached)
        #expect(answer.state.snapshot?.payload == 1 && answer.state.isFresh)
        #expect(answer.state.age == .seconds(20 * minute - 2))
    }

    @Test func aFailureKeepsTheSnapshotStaleAndTheCooldownHolds() throws {
        var driver = try driverWithSnapshot(RefreshParameters(interval: .seconds(60), minInterval: .seconds(30)))
        let request = try driver.start(.pull(PullToken(2)), at: .at(100))
        let failed = driver.send(.updateFinished(request.id, .failed("no network")), at: .at(101)).pullAnswers()
        #expect(failed.map(\.result) == [.failed])
        #expect(failed.first?.state.snapshot?.version == 1)
        #expect(failed.first?.state.isStale == true && failed.first?.state.error == "no network")

        // Within 15 s of the attempt: cached, and the extension is not called.
        let cached = driver.send(.pull(PullToken(3)), at: .at(114))
        #expect(cached.startedUpdates().isEmpty)
        #expect(cached.pullAnswers().map(\.result) == [.cached])
        #expect(cached.pullAnswers().first?.state.isStale == true)
        // After the cooldown a pull calls the extension again.
        #expect(try driver.start(.pull(PullToken(4)), at: .at(115)).reason == .pull)
    }

    @Test func anExpiredSnapshotIsAnsweredAtOnceAndItsRevalidationReportedAfterTheUpdate() throws {
        var driver = try driverWithSnapshot(RefreshParameters(interval: .seconds(60), minInterval: .seconds(30)))
        // Past its freshness (60 s) and the cooldown: answered from the cache, and an update starts.
        let expired = driver.send(.pull(PullToken(2), waits: false), at: .at(70))
        #expect(expired.pullAnswers().map(\.isRevalidating) == [true])
        #expect(expired.pullAnswers().first?.state.snapshot?.version == 1)
        let request = try #require(expired.startedUpdates().first)
        #expect(request.reason == .pull)
        // Another expired pull during the update is answered at once too; one that waits joins.
        #expect(driver.send(.pull(PullToken(3), waits: false), at: .at(71)).pullAnswers().map(\.isRevalidating) == [true])
        #expect(driver.send(.pull(PullToken(4), waits: true), at: .at(71)).isEmpty)

        let finished = driver.send(.updateFinished(request.id, .newData(2)), at: .at(72))
        #expect(finished.pullAnswers().map(\.pulls) == [[PullToken(4)]])
        let revalidated = finished.compactMap { if case .revalidated(let answer) = $0 { answer } else { nil } }
        #expect(revalidated.map(\.pulls) == [[PullToken(2), PullToken(3)]])
        #expect(revalidated.first?.result == .newData && revalidated.first?.state.snapshot?.version == 2)
    }

    @Test func aPullWithoutASnapshotWaitsEvenWhenItNeedNot() throws {
        var driver = EngineDriver()
        let started = driver.send(.pull(PullToken(1), waits: false), at: .at(0))
        #expect(started.pullAnswers().isEmpty && started.startedUpdates().count == 1)
    }

    @Test func overlappingPullsShareOneUpdate() throws {
        var driver = EngineDriver()
        let request = try driver.start(.pull(PullToken(1)), at: .at(0))
        for token in 2...5 {
            let joined = driver.send(.pull(PullToken(UInt64(token))), at: .at(Int64(token)))
            #expect(joined.isEmpty)
        }
        let answers = driver.send(.updateFinished(request.id, .noData), at: .at(6)).pullAnswers()
        #expect(answers.map(\.pulls) == [[PullToken(1)], (2...5).map { PullToken(UInt64($0)) }])
        #expect(answers.map(\.delivery) == [.updated, .coalesced])
        #expect(answers.map(\.result) == [.noData, .noData])
    }

    @Test func aMissedDeadlineKillsFailsAndDiscardsTheLateAnswer() throws {
        var driver = EngineDriver()
        let request = try driver.start(.pull(PullToken(1)), at: .at(0))
        let (firedAt, actions) = try driver.fireTimer()
        #expect(firedAt == .at(10))
        #expect(actions.first == .killForDeadline(request.id))
        #expect(actions.pullAnswers().map(\.result) == [.failed])
        #expect(driver.engine.state(at: .at(10)).error == "no answer before the deadline")

        let before = driver.engine.record
        let late = driver.send(.updateFinished(request.id, .newData(9)), at: .at(11))
        #expect(late.isEmpty)
        #expect(driver.engine.record == before)
        #expect(driver.engine.record.snapshot == nil)
    }

    @Test func aTimerFiringEarlyOnlyRearmsIt() throws {
        var driver = try driverWithSnapshot()
        let due = try #require(driver.timer)
        let early = driver.send(.timerFired, at: due - .seconds(1))
        #expect(early == [.armTimer(due)])
    }

    @Test func noDataStretchesTheIntervalUpToTheMaximumAndNewDataResetsIt() throws {
        var driver = try driverWithSnapshot()
        var gaps: [Duration] = []
        for index in 0..<6 {
            let (firedAt, actions) = try driver.fireTimer()
            let request = try #require(actions.startedUpdates().first)
            #expect(request.reason == .schedule)
            let result: UpdateResult<Int> = index < 5 ? .noData : .newData(2)
            driver.send(.updateFinished(request.id, result), at: firedAt)
            let next = try #require(driver.timer)
            gaps.append(next - firedAt)
        }
        // 60, 120, 240, 240, 240 minutes after noData, minus up to 3 minutes; 30 after newData.
        let expected: [Int64] = [60, 120, 240, 240, 240, 30]
        for (gap, minutes) in zip(gaps, expected) {
            #expect(gap <= .seconds(minutes * minute) && gap >= .seconds((minutes - 3) * minute))
        }
    }

    @Test func anEarlyAfterHintIsHeldToTheMinimumInterval() throws {
        var driver = EngineDriver()
        let request = try driver.start(.pull(PullToken(1)), at: .at(0))
        driver.send(.updateFinished(request.id, .newData(1), reload: .after(.at(60))), at: .at(1))
        #expect(driver.timer == .at(5 * minute))

        let scheduled = try #require(try driver.fireTimer().actions.startedUpdates().first)
        driver.send(.updateFinished(scheduled.id, .noData, reload: .after(.at(4 * 3600))), at: .at(5 * minute + 1))
        #expect(driver.timer == .at(4 * 3600))
    }

    @Test func neverStopsSchedulingUntilAPullGetsNewData() throws {
        var driver = EngineDriver()
        let first = try driver.start(.pull(PullToken(1)), at: .at(0))
        driver.send(.updateFinished(first.id, .newData(1), reload: .never), at: .at(1))
        #expect(driver.timer == nil)
        #expect(driver.engine.record.schedule.isSuspended)

        // Once the snapshot is no longer fresh, pulls still update it; noData does not resume.
        let second = try driver.start(.pull(PullToken(2)), at: .at(31 * minute))
        driver.send(.updateFinished(second.id, .noData), at: .at(31 * minute))
        #expect(driver.timer == nil)
        let third = try driver.start(.manualRefresh, at: .at(40 * minute))
        #expect(third.reason == .manual)
        driver.send(.updateFinished(third.id, .newData(2)), at: .at(40 * minute))
        #expect(driver.timer != nil)
        #expect(!driver.engine.record.schedule.isSuspended)
    }

    @Test func scheduledRefreshesSpendTheBudgetAndWaitForIt() throws {
        let parameters = RefreshParameters(interval: .seconds(60), minInterval: .seconds(60), jitter: .zero, dailyBudget: 24, budgetBurst: 1)
        var driver = EngineDriver(parameters)
        let first = try driver.start(.manualRefresh, at: .at(0))
        driver.send(.updateFinished(first.id, .newData(1)), at: .at(0))
        #expect(driver.engine.record.schedule.bucket.tokens(at: .at(0)) == 1)  // manual is free

        let (_, spent) = try driver.fireTimer()
        let scheduled = try #require(spent.startedUpdates().first)
        driver.send(.updateFinished(scheduled.id, .newData(2)), at: .at(60))
        // No token left at 120 s: the refresh waits for the next one, an hour after the last.
        let (_, waiting) = try driver.fireTimer()
        #expect(waiting.startedUpdates().isEmpty)
        #expect(driver.timer == .at(60 + 3600))
    }

    @Test func anExitDuringAnUpdateFailsItWithoutAKill() throws {
        var driver = EngineDriver()
        _ = try driver.start(.pull(PullToken(1)), at: .at(0))
        let actions = driver.send(.extensionExited(reason: "exited with status 1"), at: .at(1))
        #expect(!actions.contains { if case .killForDeadline = $0 { true } else { false } })
        #expect(actions.pullAnswers().first?.state.error == "exited with status 1")
        let again = driver.send(.extensionExited(reason: "again"), at: .at(2))
        #expect(again.isEmpty)
    }

    @Test func theRecordSurvivesPersistenceAndRebasing() throws {
        var engine = RefreshEngine<[UInt8]>(parameters: RefreshParameters(), now: .at(0))
        var random = SeededRandom(seed: 9)
        let started = engine.handle(.manualRefresh, at: .at(0), using: &random)
        let request = try #require(started.startedUpdates().first)
        _ = engine.handle(.updateFinished(request.id, .newData(Array(#"{"t":21}"#.utf8))), at: .at(1), using: &random)

        let data = try JSONEncoder().encode(engine.record)
        let decoded = try JSONDecoder().decode(RefreshRecord<[UInt8]>.self, from: data)
        #expect(decoded == engine.record)

        // The daemon restarts with a clock 1000 s behind the old one: same ages, same schedule.
        let restored = RefreshEngine(parameters: RefreshParameters(), restoring: decoded.rebased(by: .seconds(-1000)), now: .at(-900))
        let (after, before) = (restored.state(at: .at(-900)), engine.state(at: .at(100)))
        #expect(after.age == before.age && after.isFresh == before.isFresh && after.error == before.error)
        #expect(after.snapshot?.payload == before.snapshot?.payload)
        #expect(restored.wakeTime == engine.wakeTime.map { $0 - .seconds(1000) })
        #expect(restored.record.snapshot?.version == 1)
    }

    @Test func reconfiguringChangesTheBudgetAtOnce() throws {
        var driver = try driverWithSnapshot()
        let actions = driver.send(.reconfigured(RefreshParameters(dailyBudget: 0, budgetBurst: 0)), at: .at(10))
        #expect(actions == [.persist])
        #expect(driver.engine.record.schedule.bucket.tokens(at: .at(10)) == 0)
        #expect(driver.engine.parameters.dailyBudget == 0)
    }
}
