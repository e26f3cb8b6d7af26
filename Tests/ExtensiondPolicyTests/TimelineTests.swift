import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// Timelines: entries become the snapshot at their dates, without an update, one version
/// each; `atEnd` waits for the last; a timeline is one update for the budget.
@Suite struct TimelineTests {
    /// 60 entries one second apart, after a first pull at 0 answered at 1 s.
    func driverWithTimeline(reload: ReloadHint = .atEnd) throws -> EngineDriver {
        var driver = EngineDriver(RefreshParameters(interval: .seconds(10), minInterval: .seconds(5), pullCooldown: .zero))
        let request = try driver.start(.pull(PullToken(1)), at: .at(0))
        let timeline = (1...60).map { TimelineSnapshot(payload: $0, date: .at(1 + Int64($0))) }
        driver.send(.updateFinished(request.id, .newData(0, timeline: timeline), reload: reload), at: .at(1))
        return driver
    }

    @Test func eachEntryIsPushedAtItsDateWithoutAnUpdate() throws {
        var driver = try driverWithTimeline(reload: .never)
        let tokens = driver.engine.record.schedule.bucket.tokens(at: .at(1))
        for entry in 1...60 {
            let (at, actions) = try driver.fireTimer()
            #expect(at == .at(1 + Int64(entry)))
            #expect(actions.startedUpdates().isEmpty)
            let pushed = actions.compactMap { if case .pushSnapshot(let snapshot) = $0 { snapshot } else { nil } }
            #expect(pushed.map(\.payload) == [entry] && pushed.map(\.version) == [UInt64(entry) + 1])
            #expect(pushed.first?.timelineDate == at)
        }
        #expect(driver.engine.record.timeline.isEmpty)
        #expect(driver.engine.record.schedule.bucket.tokens(at: .at(61)) >= tokens)
    }

    @Test func pullsAreCachedWhileEntriesArePending() throws {
        var driver = try driverWithTimeline()
        // Past the 10 s interval, but the timeline runs until 61 s.
        let actions = driver.send(.pull(PullToken(2)), at: .at(30))
        #expect(actions.startedUpdates().isEmpty)
        #expect(actions.pullAnswers().first?.state.snapshot?.payload == 29)
    }

    @Test func atEndMeansTheLastEntry() throws {
        var driver = try driverWithTimeline()
        #expect(driver.engine.record.schedule.nextRefresh == .at(61))
        for _ in 1...59 { _ = try driver.fireTimer() }
        let (at, last) = try driver.fireTimer()
        #expect(at == .at(61))
        #expect(last.startedUpdates().map(\.reason) == [.schedule])
    }

    @Test func aNewResultReplacesTheTimeline() throws {
        var driver = try driverWithTimeline(reload: .never)
        let request = try driver.start(.manualRefresh, at: .at(5))
        driver.send(.updateFinished(request.id, .newData(100)), at: .at(6))
        #expect(driver.engine.record.timeline.isEmpty)
        #expect(driver.engine.record.snapshot?.payload == 100)
    }

    @Test func theTimelineSurvivesARestart() throws {
        let driver = try driverWithTimeline()
        let restored = RefreshEngine(parameters: driver.engine.parameters, restoring: driver.engine.record.rebased(by: .seconds(100)), now: .at(101))
        #expect(restored.record.timeline.first?.date == .at(102))
        #expect(restored.wakeTime == .at(102))
    }

    /// An entry becoming current is no write (a write per entry held every push behind its
    /// fsyncs, bench/README.md): the record last written makes it current again once restored.
    @Test func anEntryBecomingCurrentIsNoWriteAndARestoreMakesItCurrentAgain() throws {
        var driver = try driverWithTimeline(reload: .never)
        let written = driver.engine.record
        for _ in 1...3 {
            let (_, actions) = try driver.fireTimer()
            #expect(!actions.contains { if case .persist = $0 { true } else { false } }, "\(actions)")
        }
        var restored = EngineDriver(driver.engine.parameters)
        restored.engine = RefreshEngine(parameters: driver.engine.parameters, restoring: written, now: .at(4))
        let pushed = restored.send(.timerFired, at: .at(4)).compactMap { if case .pushSnapshot(let snapshot) = $0 { snapshot } else { nil } }
        #expect(pushed.map(\.payload) == [1, 2, 3])
        #expect(restored.engine.record.snapshot?.version == driver.engine.record.snapshot?.version)
        #expect(restored.engine.record.timeline.map(\.date) == driver.engine.record.timeline.map(\.date))
    }
}
