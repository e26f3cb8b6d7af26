import ExtensiondTestSupport
import ExtensiondPolicy
import Testing

@Suite struct KillPolicyTests {
    func candidate(
        _ id: String, _ band: KillBand, priority: Int = 0, lastUsed: Int64 = 0, rss: UInt64 = 0
    ) -> KillCandidate {
        KillCandidate(id: id, band: band, priority: priority, lastUsed: .at(lastUsed), residentBytes: rss)
    }

    @Test func lowPressureKillsOnlyIdleExtensions() {
        let active = candidate("active", .activeExtension)
        let app = candidate("app", .backgroundApp)
        let host = candidate("host", .host)
        #expect(KillPolicy.victim(among: [active, app, host], at: .low) == nil)
        let idle = candidate("idle", .idleExtension, priority: 100)
        #expect(KillPolicy.victim(among: [active, app, host, idle], at: .low) == idle)
    }

    @Test func criticalPressureGoesUpTheBandsButNeverToHosts() {
        let active = candidate("active", .activeExtension)
        let app = candidate("app", .backgroundApp)
        let host = candidate("host", .host)
        #expect(KillPolicy.victim(among: [host, app, active], at: .critical) == active)
        #expect(KillPolicy.victim(among: [host, app], at: .critical) == app)
        #expect(KillPolicy.victim(among: [host], at: .critical) == nil)
    }

    @Test func noPressureKillsNothing() {
        #expect(KillPolicy.victim(among: [candidate("idle", .idleExtension)], at: .none) == nil)
    }

    @Test func withinABandPriorityThenLeastRecentlyUsedThenLargestThenId() {
        let band = KillBand.idleExtension
        let table = [
            candidate("e", band, priority: 1, lastUsed: 0, rss: 9_000),
            candidate("d", band, priority: 0, lastUsed: 20, rss: 9_000),
            candidate("c", band, priority: 0, lastUsed: 10, rss: 1_000),
            candidate("b", band, priority: 0, lastUsed: 10, rss: 5_000),
            candidate("a", band, priority: 0, lastUsed: 10, rss: 5_000),
        ]
        var remaining = table
        var order: [String] = []
        while let victim = KillPolicy.victim(among: remaining, at: .low) {
            order.append(victim.id)
            remaining.removeAll { $0 == victim }
        }
        #expect(order == ["a", "b", "c", "d", "e"])
    }

    /// Over random tables: never a host, never an active extension at low
    /// pressure, always from the lowest allowed non-empty band and first there
    /// in the documented order; the same victim whatever the input order.
    @Test func randomTablesKeepEveryRule() {
        var random = SeededRandom(seed: 2024)
        for _ in 0..<5_000 {
            let table = (0..<Int.random(in: 0...12, using: &random)).map { index in
                candidate(
                    "p\(Int.random(in: 0...20, using: &random))-\(index)",
                    KillBand.allCases.randomElement(using: &random) ?? .host,
                    priority: Int.random(in: -2...2, using: &random),
                    lastUsed: Int64.random(in: 0...5, using: &random),
                    rss: UInt64.random(in: 0...3, using: &random) << 20)
            }
            for pressure in PressureLevel.allCases {
                let victim = KillPolicy.victim(among: table, at: pressure)
                let allowed = table.filter { $0.band.isKillable(at: pressure) }
                #expect(victim?.band != .host)
                if pressure == .low { #expect(victim.map { $0.band == .idleExtension } ?? true) }
                if pressure == .none { #expect(victim == nil) }
                #expect((victim == nil) == allowed.isEmpty)
                guard let victim else { continue }
                #expect(victim.band == allowed.map(\.band).min())
                for other in allowed where other.band == victim.band && other != victim {
                    let victimKey = (victim.priority, victim.lastUsed.nanoseconds, ~victim.residentBytes, victim.id)
                    let otherKey = (other.priority, other.lastUsed.nanoseconds, ~other.residentBytes, other.id)
                    #expect(victimKey < otherKey)
                }
                #expect(KillPolicy.victim(among: table.shuffled(using: &random), at: pressure) == victim)
                #expect(KillPolicy.victim(among: table.reversed(), at: pressure) == victim)
            }
        }
    }
}

@Suite struct PressureThresholdsTests {
    let thresholds = PressureThresholds(budget: 1_000, low: 0.85, critical: 0.95)

    @Test func classifiesUsageAgainstTheWatermarks() {
        #expect(thresholds.lowBytes == 850 && thresholds.criticalBytes == 950)
        let levels = [0, 849, 850, 949, 950, 5_000].map { thresholds.level(forUsage: $0) }
        #expect(levels == [.none, .none, .low, .low, .critical, .critical])
    }

    @Test func sharesOutsideTheRangeAreClamped() {
        let odd = PressureThresholds(budget: 1_000, low: -1, critical: .nan)
        #expect(odd.lowBytes == 0 && odd.criticalBytes == 1_000)
        let huge = PressureThresholds(budget: .max, low: 1, critical: 2)
        #expect(huge.lowBytes == .max && huge.criticalBytes == .max)
    }

    /// More usage never means less pressure.
    @Test func levelsGrowWithUsage() {
        var random = SeededRandom(seed: 77)
        for _ in 0..<5_000 {
            let budget = UInt64.random(in: 0...(1 << 40), using: &random)
            let low = Double.random(in: 0...1, using: &random)
            let thresholds = PressureThresholds(budget: budget, low: low, critical: Double.random(in: low...1, using: &random))
            let usages = (0..<4).map { _ in UInt64.random(in: 0...(budget + 1), using: &random) }.sorted()
            let levels = usages.map { thresholds.level(forUsage: $0) }
            #expect(levels == levels.sorted())
        }
    }

    /// Every working set at `low` or above is re-checked, and so is the band just below it
    /// (1/32 of `low`, at least 4 MiB); nothing further below is.
    @Test func rechecksCoverTheBandBelowTheLowWatermarkAndEverythingAbove() {
        let mebibyte: UInt64 = 1 << 20
        let scenario = PressureThresholds(budget: 300 * mebibyte, low: 0.85, critical: 0.95)
        #expect(scenario.recheckBytes == 255 * mebibyte - 255 * mebibyte / 32)
        #expect(PressureThresholds(budget: 64 * mebibyte, low: 0.5, critical: 0.9).recheckBytes == 28 * mebibyte)
        #expect(PressureThresholds(budget: mebibyte, low: 0.5, critical: 0.9).recheckBytes == 0)

        var random = SeededRandom(seed: 78)
        for _ in 0..<5_000 {
            let budget = UInt64.random(in: 0...(1 << 40), using: &random)
            let low = Double.random(in: 0...1, using: &random)
            let thresholds = PressureThresholds(budget: budget, low: low, critical: Double.random(in: low...1, using: &random))
            let band = thresholds.lowBytes - thresholds.recheckBytes
            #expect(band >= min(thresholds.lowBytes, PressureThresholds.minimumRecheckBand))
            #expect(band <= max(PressureThresholds.minimumRecheckBand, thresholds.lowBytes / 32))
            let sets = (0..<2).map { _ in UInt64.random(in: 0...(budget + 1), using: &random) }.sorted()
            if thresholds.needsRecheck(workingSet: sets[0]) { #expect(thresholds.needsRecheck(workingSet: sets[1])) }
            if thresholds.level(forUsage: sets[0]) > .none { #expect(thresholds.needsRecheck(workingSet: sets[0])) }
        }
    }
}
