import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// Hidden widgets: scheduled refreshes wait, spending nothing, and one that came due
/// runs once the widget is shown again.
@Suite struct VisibilityTests {
    let minute: Int64 = 60

    /// A driver whose extension delivered `newData(1)` at 2 s after a first pull at 0.
    func driverWithSnapshot() throws -> EngineDriver {
        var driver = EngineDriver(RefreshParameters(dailyBudget: 48, budgetBurst: 3))
        let request = try driver.start(.pull(PullToken(1)), at: .at(0))
        driver.send(.updateFinished(request.id, .newData(1)), at: .at(2))
        return driver
    }

    @Test func aHiddenWidgetIsNotRefreshedAndSpendsNothing() throws {
        var driver = try driverWithSnapshot()
        let due = try #require(driver.timer)
        let hidden = driver.send(.visibilityChanged(shown: false), at: .at(3))
        #expect(hidden == [.armTimer(nil)])
        #expect(driver.engine.wakeTime == nil)
        // Hours later, still hidden: nothing was started, the budget is full.
        let later = Instant.at(5 * 3_600)
        #expect(driver.send(.timerFired, at: later).startedUpdates().isEmpty)
        #expect(driver.engine.record.schedule.bucket.tokens(at: later) == 3)
        #expect(driver.engine.record.schedule.nextRefresh == due)
    }

    @Test func showingAnExpiredWidgetRefreshesItOnce() throws {
        var driver = try driverWithSnapshot()
        driver.send(.visibilityChanged(shown: false), at: .at(3))
        let shownAt = Instant.at(2 * 3_600)
        #expect(!driver.engine.state(at: shownAt).isFresh)
        let shown = driver.send(.visibilityChanged(shown: true), at: shownAt)
        #expect(shown.startedUpdates().map(\.reason) == [.schedule])
        #expect(driver.engine.record.schedule.bucket.tokens(at: shownAt) == 2)
        // Shown again while the refresh runs: no second one.
        driver.send(.visibilityChanged(shown: false), at: shownAt + .seconds(1))
        #expect(driver.send(.visibilityChanged(shown: true), at: shownAt + .seconds(2)).startedUpdates().isEmpty)
    }

    @Test func showingAFreshWidgetWaitsForItsSchedule() throws {
        var driver = try driverWithSnapshot()
        driver.send(.visibilityChanged(shown: false), at: .at(3))
        let shown = driver.send(.visibilityChanged(shown: true), at: .at(10 * minute))
        #expect(shown.startedUpdates().isEmpty)
        #expect(driver.timer == driver.engine.record.schedule.nextRefresh)
    }

    @Test func pullsOfAHiddenWidgetAreServedAsEver() throws {
        var driver = EngineDriver()
        driver.send(.visibilityChanged(shown: false), at: .at(0))
        #expect(driver.send(.pull(PullToken(1)), at: .at(1)).startedUpdates().map(\.reason) == [.pull])
    }
}
