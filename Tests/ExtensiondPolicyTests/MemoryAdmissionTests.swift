import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// ``MemoryAdmission`` and the engine's memory hold, over random readings and extremes.
@Suite struct MemoryAdmissionTests {
    static let mebibyte: UInt64 = 1 << 20
    static let thresholds = PressureThresholds(budget: 256 * mebibyte, low: 0.85, critical: 0.95)

    @Test func withoutABudgetEverythingIsAdmitted() {
        var admission = MemoryAdmission(thresholds: nil)
        admission.observe(workingSet: .max, usage: .max, at: .at(0))
        admission.killedByPressure("w")
        #expect(admission.admitsScheduledRefresh(of: "w", launchPeak: .max))
        #expect(admission.bytesToFree(beforeLaunching: .max) == 0)
        #expect(!admission.isHolding)
    }

    @Test func aScheduledRefreshWaitsAboveWarnAndForAPressureKilledWidgetUntilPressureEased() {
        var admission = MemoryAdmission(thresholds: Self.thresholds)
        let warn = Self.thresholds.warnBytes
        admission.observe(workingSet: warn - 1, usage: warn - 1, at: .at(0))
        #expect(admission.admitsScheduledRefresh(of: "w", launchPeak: nil))
        admission.observe(workingSet: warn, usage: warn, at: .at(0))
        #expect(!admission.admitsScheduledRefresh(of: "w", launchPeak: nil) && admission.isHolding)
        admission.killedByPressure("w")
        // Back under warn: pressure eased, the killed widget may run again.
        admission.observe(workingSet: warn - 1, usage: warn - 1, at: .at(0))
        #expect(admission.admitsScheduledRefresh(of: "w", launchPeak: nil) && !admission.isHolding)
        // Killed while below warn (a stall): held until a reading below warn comes after it.
        admission.killedByPressure("w")
        #expect(!admission.admitsScheduledRefresh(of: "w", launchPeak: nil) && admission.admitsScheduledRefresh(of: "other", launchPeak: nil))
        admission.observe(workingSet: 0, usage: 0, at: .at(0))
        #expect(admission.admitsScheduledRefresh(of: "w", launchPeak: nil))
    }

    /// The gap the daemon test found: the kernel announced usage crossing warn while the
    /// working set was still below it, and nothing announces the working set following.
    @Test func theTreeIsReadEverySecondWhileUsageIsPastWarnOrAnythingIsHeld() {
        var admission = MemoryAdmission(thresholds: Self.thresholds)
        let warn = Self.thresholds.warnBytes
        #expect(admission.nextReading == nil, "nothing read yet")
        admission.observe(workingSet: warn - 1, usage: warn - 1, at: .at(0))
        #expect(admission.nextReading == nil, "below warn the kernel's crossing suffices")
        admission.observe(workingSet: warn - 10 * Self.mebibyte, usage: warn, at: .at(3))
        #expect(admission.nextReading == .at(4) && admission.admitsScheduledRefresh(of: "w", launchPeak: nil))
        // The next reading, a second later, finds the working set past warn: held.
        admission.observe(workingSet: warn, usage: warn + Self.mebibyte, at: .at(4))
        #expect(admission.nextReading == .at(5) && !admission.admitsScheduledRefresh(of: "w", launchPeak: nil))
        admission.killedByPressure("w")
        admission.observe(workingSet: 0, usage: 0, at: .at(9))
        #expect(admission.nextReading == nil && admission.admitsScheduledRefresh(of: "w", launchPeak: nil))
        // Killed by a stall below warn: read again until a reading after the kill is below warn.
        admission.killedByPressure("w")
        #expect(admission.nextReading == .at(10))
        admission.observe(workingSet: 0, usage: .max, at: .at(10))
        #expect(admission.usage == .max && admission.nextReading == .at(11), "usage at its extreme")
        admission.observe(workingSet: 0, usage: 0, at: Instant(nanoseconds: .max))
        #expect(admission.nextReading == nil)
        admission.observe(workingSet: .max, usage: 0, at: Instant(nanoseconds: .max))
        #expect(admission.usage == .max && admission.nextReading == Instant(nanoseconds: .max), "the next reading saturates at the end of time")
    }

    @Test func aLaunchFreesWhatItsPeakWouldTakePastLow() {
        var admission = MemoryAdmission(thresholds: Self.thresholds)
        let low = Self.thresholds.lowBytes
        #expect(admission.bytesToFree(beforeLaunching: 100 * Self.mebibyte) == 0, "nothing read yet")
        admission.observe(workingSet: low - 10 * Self.mebibyte, usage: low - 10 * Self.mebibyte, at: .at(0))
        #expect(admission.bytesToFree(beforeLaunching: 10 * Self.mebibyte - 1) == 0)
        #expect(admission.bytesToFree(beforeLaunching: 10 * Self.mebibyte) == 1)
        #expect(admission.bytesToFree(beforeLaunching: 30 * Self.mebibyte) == 20 * Self.mebibyte + 1)
        #expect(admission.bytesToFree(beforeLaunching: .max) == .max - low + 1, "saturates")
        #expect(!admission.admitsScheduledRefresh(of: "w", launchPeak: 30 * Self.mebibyte), "a scheduled launch waits instead")
    }

    /// Over random readings, kills, peaks and budgets (extremes included): a scheduled
    /// refresh is admitted exactly when the working set is below warn, its widget was not
    /// killed since the last reading below warn, and its launch would stay below low; and
    /// freeing the bytes asked for always brings a launch below low.
    @Test(arguments: seeds(300))
    func decisionsFollowTheRules(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let (budget, thresholds) = Self.randomBudget(using: &random)
        var admission = MemoryAdmission(thresholds: thresholds)
        var killedSinceEase = Set<String>()
        var now = Instant.at(0)
        for _ in 0..<50 {
            let values: [UInt64] = [0, thresholds.warnBytes, thresholds.lowBytes, .max, UInt64.random(in: 0...max(budget, 1), using: &random)]
            let reading = values.randomElement(using: &random)!
            let usage = Bool.random(using: &random) ? reading : max(reading, values.randomElement(using: &random)!)
            now = now + .milliseconds(Int64.random(in: 0...5_000, using: &random))
            admission.observe(workingSet: reading, usage: usage, at: now)
            if reading < thresholds.warnBytes { killedSinceEase = [] }
            let id = ["a", "b", "c"].randomElement(using: &random)!
            if Bool.random(using: &random) {
                admission.killedByPressure(id)
                killedSinceEase.insert(id)
            }
            let peak: UInt64? = Bool.random(using: &random) ? values.randomElement(using: &random) : nil
            let free = admission.bytesToFree(beforeLaunching: peak)
            let fits = peak.map { reading.addingReportingOverflow($0) }.map { !$0.overflow && $0.partialValue < thresholds.lowBytes } ?? true
            #expect((free == 0) == fits)
            // Freeing what is asked lands one byte below low (where the sum is representable
            // and low is not zero, below which nothing lands).
            if let peak, free > 0, thresholds.lowBytes > 0, case let (total, false) = reading.addingReportingOverflow(peak) {
                #expect(total - free == thresholds.lowBytes - 1, "seed \(seed)")
            }
            let expected = reading < thresholds.warnBytes && !killedSinceEase.contains(id) && fits
            #expect(admission.admitsScheduledRefresh(of: id, launchPeak: peak) == expected, "seed \(seed)")
            let readsAgain = usage >= thresholds.warnBytes || !killedSinceEase.isEmpty
            #expect(admission.nextReading == (readsAgain ? now + MemoryAdmission.readingInterval : nil), "seed \(seed)")
        }
    }

    /// A budget (0, 1, 256 MiB, 2^64 − 1 or any up to 1 TiB) and random watermarks of it.
    static func randomBudget(using random: inout SeededRandom) -> (budget: UInt64, thresholds: PressureThresholds) {
        let budgets: [UInt64] = [0, 1, 256 * mebibyte, .max]
        let budget = Bool.random(using: &random) ? budgets.randomElement(using: &random)! : UInt64.random(in: 0...(1 << 40), using: &random)
        return (budget, PressureThresholds(budget: budget, low: Double.random(in: 0...1, using: &random), critical: 1))
    }

    @Test func aHeldWidgetSpendsNothingAndRunsOnceReleased() throws {
        let parameters = RefreshParameters(interval: .seconds(60), minInterval: .seconds(10), jitter: .zero, dailyBudget: 100, budgetBurst: 10)
        var generator = SeededRandom(seed: 1)
        var engine = RefreshEngine<Int>(parameters: parameters, now: .at(0))
        _ = engine.handle(.manualRefresh, at: .at(0), using: &generator)
        let started = try #require(engine.updateInFlight)
        _ = engine.handle(.updateFinished(started.id, .newData(1)), at: .at(1), using: &generator)
        let due = try #require(engine.record.schedule.nextRefresh)
        let held = engine.handle(.memoryHold(true), at: .at(2), using: &generator)
        #expect(held.contains(.armTimer(nil)) && engine.wakeTime == nil)
        let tokens = engine.budget.tokens(at: due + .seconds(5))
        #expect(engine.handle(.timerFired, at: due + .seconds(5), using: &generator).isEmpty, "held: nothing starts")
        #expect(engine.budget.tokens(at: due + .seconds(5)) == tokens, "and nothing is spent")
        let released = engine.handle(.memoryHold(false), at: due + .seconds(6), using: &generator)
        #expect(released.contains { if case .startUpdate(let request) = $0 { request.reason == .schedule } else { false } })
    }
}
