import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// ``MemoryAdmission/launchDecision(of:peak:askedAt:freed:now:)``: launches a host asked
/// for, in virtual time and over random readings, peaks and instants (extremes included).
@Suite struct LaunchAdmissionTests {
    static let mebibyte: UInt64 = 1 << 20
    static let thresholds = PressureThresholds(budget: 256 * mebibyte, low: 0.85, critical: 0.95)

    @Test func aLaunchFreesThenWaitsForAReadingWithRoomThenGoes() {
        var admission = MemoryAdmission(thresholds: Self.thresholds)
        let low = Self.thresholds.lowBytes
        admission.observe(workingSet: low - 10 * Self.mebibyte, usage: low, at: .at(0))
        #expect(admission.launchDecision(of: "w", peak: 5 * Self.mebibyte, askedAt: .at(0), freed: false, now: .at(0)) == .launch)
        #expect(admission.launchDecision(of: "w", peak: nil, askedAt: .at(0), freed: false, now: .at(0)) == .launch, "no peak recorded yet")
        #expect(
            admission.launchDecision(of: "w", peak: 30 * Self.mebibyte, askedAt: .at(0), freed: false, now: .at(0))
                == .free(bytes: 20 * Self.mebibyte + 1))
        // The episode freed too little: the launch waits, reading again every 250 ms.
        admission.observe(workingSet: low - 15 * Self.mebibyte, usage: low, at: .at(1))
        #expect(
            admission.launchDecision(of: "w", peak: 30 * Self.mebibyte, askedAt: .at(0), freed: true, now: .at(1))
                == .wait(until: .at(1) + .milliseconds(250)))
        // Something else ended: room now.
        admission.observe(workingSet: low - 40 * Self.mebibyte, usage: low, at: .at(2))
        #expect(admission.launchDecision(of: "w", peak: 30 * Self.mebibyte, askedAt: .at(0), freed: true, now: .at(2)) == .launch)
    }

    @Test func aLaunchThatFindsNoRoomWithinTheWaitIsRefusedNamingMemory() throws {
        var admission = MemoryAdmission(thresholds: Self.thresholds)
        admission.observe(workingSet: Self.thresholds.lowBytes, usage: .max, at: .at(0))
        let waitEnds = Instant.at(0) + MemoryAdmission.launchWait
        #expect(admission.launchDecision(of: "w", peak: 1, askedAt: .at(0), freed: true, now: waitEnds - .milliseconds(100)) == .wait(until: waitEnds))
        guard case .refuse(let why) = admission.launchDecision(of: "w", peak: 1, askedAt: .at(0), freed: true, now: waitEnds) else {
            Issue.record("not refused at the end of the wait")
            return
        }
        #expect(why.contains("memory") && why.contains("pressure.low") && why.contains("w"), "\(why)")
    }

    /// Over random states: launch exactly when the peak fits under low; otherwise free first,
    /// then wait no later than the end of the wait and no longer than a re-check, then refuse.
    @Test(arguments: seeds(300))
    func decisionsFollowTheRules(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let (budget, thresholds) = MemoryAdmissionTests.randomBudget(using: &random)
        var admission = MemoryAdmission(thresholds: Bool.random(using: &random) ? thresholds : nil)
        let instants: [Instant] = [Instant(nanoseconds: .min), .at(0), .at(5), Instant(nanoseconds: .max)]
        for _ in 0..<50 {
            let values: [UInt64] = [0, 1, thresholds.lowBytes, .max, UInt64.random(in: 0...max(budget, 1), using: &random)]
            let reading = values.randomElement(using: &random)!
            let now = Bool.random(using: &random) ? instants.randomElement(using: &random)! : .at(Int64.random(in: 0...20, using: &random))
            let askedAt =
                Bool.random(using: &random) ? instants.randomElement(using: &random)! : now - .milliseconds(Int64.random(in: 0...6_000, using: &random))
            if Bool.random(using: &random) { admission.observe(workingSet: reading, usage: reading, at: now) }
            let peak: UInt64? = Bool.random(using: &random) ? values.randomElement(using: &random) : nil
            let freed = Bool.random(using: &random)
            let decision = admission.launchDecision(of: "w", peak: peak, askedAt: askedAt, freed: freed, now: now)
            let bytes = admission.bytesToFree(beforeLaunching: peak)
            let deadline = askedAt + MemoryAdmission.launchWait
            switch decision {
            case .launch: #expect(bytes == 0, "seed \(seed)")
            case .free(let asked): #expect(bytes > 0 && asked == bytes && !freed, "seed \(seed)")
            case .wait(let until):
                #expect(bytes > 0 && freed && now < deadline, "seed \(seed)")
                #expect(until > now && until <= deadline && until <= now + MemoryAdmission.launchRecheck, "seed \(seed)")
            case .refuse: #expect(bytes > 0 && freed && now >= deadline, "seed \(seed)")
            }
        }
    }
}
