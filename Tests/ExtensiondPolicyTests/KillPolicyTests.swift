import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

@Suite struct KillPolicyTests {
    static let mebibyte: UInt64 = 1 << 20

    func candidate(
        _ id: String, _ band: KillBand, priority: Int = 0, lastUsed: Int64 = 0, rss: UInt64 = 0, growth: UInt64 = 0
    ) -> KillCandidate {
        KillCandidate(id: id, band: band, priority: priority, lastUsed: .at(lastUsed), residentBytes: rss, growthBytes: growth)
    }

    /// Every victim at `pressure`, one decision after the other, as the daemon's episodes
    /// take them: each decision among the candidates not yet killed.
    func killOrder(_ table: [KillCandidate], at pressure: PressureLevel) -> [KillCandidate] {
        var remaining = table
        var order: [KillCandidate] = []
        while let victim = KillPolicy.victim(among: remaining, at: pressure) {
            order.append(victim)
            remaining.removeAll { $0 == victim }
        }
        return order
    }

    /// The documented order within a band, written out independently of the policy:
    /// priority, significant growth (most first), last use, RSS (largest first), id.
    func documentedKey(_ candidate: KillCandidate) -> (Int, UInt64, Int64, UInt64, String) {
        let growth = candidate.growthBytes >= KillPolicy.growthThreshold ? candidate.growthBytes : 0
        return (candidate.priority, ~growth, candidate.lastUsed.nanoseconds, ~candidate.residentBytes, candidate.id)
    }

    /// A random table of up to 12 candidates in random bands, with growths around the
    /// threshold (none, below, at, above) and few distinct priorities, uses and sizes, so
    /// that every tie-break is exercised.
    func randomTable(using random: inout SeededRandom) -> [KillCandidate] {
        let threshold = KillPolicy.growthThreshold
        let growths: [UInt64] = [0, 0, 1, threshold - 1, threshold, threshold + 1, 2 * threshold, 40 * Self.mebibyte]
        return (0..<Int.random(in: 0...12, using: &random)).map { index in
            candidate(
                "p\(Int.random(in: 0...20, using: &random))-\(index)",
                KillBand.allCases.randomElement(using: &random) ?? .host,
                priority: Int.random(in: -2...2, using: &random),
                lastUsed: Int64.random(in: 0...5, using: &random),
                rss: UInt64.random(in: 0...3, using: &random) << 20,
                growth: growths.randomElement(using: &random) ?? 0)
        }
    }

    @Test func lowPressureKillsOnlyIdleExtensions() {
        let active = candidate("active", .activeExtension)
        let app = candidate("app", .backgroundApp)
        let host = candidate("host", .host)
        #expect(KillPolicy.victim(among: [active, app, host], at: .low) == nil)
        let idle = candidate("idle", .idleExtension, priority: 100)
        #expect(KillPolicy.victim(among: [active, app, host, idle], at: .low) == idle)
    }

    /// Jetsam's order: a frozen extension gives up the least, so it goes before any idle
    /// running one, whatever its priority, growth, last use or size; then idle, then active.
    @Test func suspendedExtensionsGoFirstThenIdleThenActive() {
        let suspended = candidate("suspended", .suspendedExtension, priority: 100, lastUsed: 9, rss: 1)
        let idle = candidate("idle", .idleExtension, priority: -100, lastUsed: 0, rss: 99 * Self.mebibyte, growth: 90 * Self.mebibyte)
        let active = candidate("active", .activeExtension, priority: -100, lastUsed: 0, growth: 200 * Self.mebibyte)
        #expect(killOrder([active, idle, suspended], at: .low).map(\.id) == ["suspended", "idle"])
        #expect(killOrder([active, idle, suspended], at: .critical).map(\.id) == ["suspended", "idle", "active"])
        #expect(KillPolicy.victim(among: [candidate("s", .suspendedExtension)], at: .none) == nil)
    }

    /// Over random tables: whenever a suspended extension is a candidate, no idle or
    /// active one dies before every suspended one has.
    @Test func randomEpisodesTakeEverySuspendedExtensionBeforeAnyRunningOne() {
        var random = SeededRandom(seed: 2026)
        for _ in 0..<5_000 {
            let table = randomTable(using: &random)
            for pressure in [PressureLevel.low, .critical] {
                let order = killOrder(table, at: pressure)
                let suspended = table.filter { $0.band == .suspendedExtension }
                #expect(Set(order.prefix(suspended.count)) == Set(suspended))
                let idleEnd = order.lastIndex { $0.band == .idleExtension }
                let activeStart = order.firstIndex { $0.band == .activeExtension }
                if let idleEnd, let activeStart { #expect(idleEnd < activeStart) }
            }
        }
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

    @Test func withinABandPriorityThenGrowthThenLeastRecentlyUsedThenLargestThenId() {
        let band = KillBand.idleExtension
        let table = [
            candidate("f", band, priority: 0, lastUsed: 30, rss: 1_000, growth: KillPolicy.growthThreshold),
            candidate("e", band, priority: 1, lastUsed: 0, rss: 9_000),
            candidate("d", band, priority: 0, lastUsed: 20, rss: 9_000),
            candidate("c", band, priority: 0, lastUsed: 10, rss: 1_000),
            candidate("b", band, priority: 0, lastUsed: 10, rss: 5_000),
            candidate("a", band, priority: 0, lastUsed: 10, rss: 5_000),
        ]
        #expect(killOrder(table, at: .low).map(\.id) == ["f", "a", "b", "c", "d", "e"])
    }

    /// The head-to-head's case: three idle bystanders launched first, the growing
    /// extension last. It is the most recently used, yet it goes first, and only then
    /// the bystanders in their old order.
    @Test func theExtensionThatGrewGoesBeforeOlderIdleBystanders() {
        let table = [
            candidate("idle1", .idleExtension, lastUsed: 1, rss: 36 * Self.mebibyte),
            candidate("idle2", .idleExtension, lastUsed: 2, rss: 36 * Self.mebibyte),
            candidate("idle3", .idleExtension, lastUsed: 3, rss: 36 * Self.mebibyte),
            candidate("grower", .idleExtension, lastUsed: 4, rss: 30 * Self.mebibyte, growth: 26 * Self.mebibyte),
        ]
        #expect(killOrder(table, at: .low).map(\.id) == ["grower", "idle1", "idle2", "idle3"])
    }

    @Test func growthBelowTheThresholdChangesNothing() {
        let threshold = KillPolicy.growthThreshold
        let table = [
            candidate("older", .idleExtension, lastUsed: 1, growth: 0),
            candidate("newer", .idleExtension, lastUsed: 2, growth: threshold - 1),
        ]
        #expect(KillPolicy.victim(among: table, at: .low)?.id == "older")
        let grown = [table[0], candidate("newer", .idleExtension, lastUsed: 2, growth: threshold)]
        #expect(KillPolicy.victim(among: grown, at: .low)?.id == "newer")
    }

    @Test func theCandidateThatGrewMostGoesFirst() {
        let table = [
            candidate("some", .idleExtension, lastUsed: 1, rss: 90 * Self.mebibyte, growth: 8 * Self.mebibyte),
            candidate("most", .idleExtension, lastUsed: 2, rss: 10 * Self.mebibyte, growth: 9 * Self.mebibyte),
            candidate("none", .idleExtension, lastUsed: 0, rss: 99 * Self.mebibyte),
        ]
        #expect(killOrder(table, at: .low).map(\.id) == ["most", "some", "none"])
    }

    /// Priority is the administrator's word and stays first within a band; growth only
    /// orders candidates of equal priority.
    @Test func priorityStillComesBeforeGrowth() {
        let table = [
            candidate("kept", .idleExtension, priority: 1, growth: 100 * Self.mebibyte),
            candidate("bystander", .idleExtension, priority: 0),
        ]
        #expect(killOrder(table, at: .low).map(\.id) == ["bystander", "kept"])
    }

    /// Bands stay as they are: an active extension that grows is never taken at `low`,
    /// and at `critical` only after every idle extension.
    @Test func growthNeverCrossesABand() {
        let grower = candidate("grower", .activeExtension, growth: 200 * Self.mebibyte)
        let idle = candidate("idle", .idleExtension, lastUsed: 9)
        let app = candidate("app", .backgroundApp, growth: 300 * Self.mebibyte)
        let host = candidate("host", .host, growth: 400 * Self.mebibyte)
        #expect(killOrder([grower, idle, app, host], at: .low).map(\.id) == ["idle"])
        #expect(killOrder([host, app, grower, idle], at: .critical).map(\.id) == ["idle", "grower", "app"])
    }

    /// Over random tables: never a host, never an active extension at low
    /// pressure, always from the lowest allowed non-empty band and first there
    /// in the documented order; the same victim whatever the input order.
    @Test func randomTablesKeepEveryRule() {
        var random = SeededRandom(seed: 2024)
        for _ in 0..<5_000 {
            let table = randomTable(using: &random)
            for pressure in PressureLevel.allCases {
                let victim = KillPolicy.victim(among: table, at: pressure)
                let allowed = table.filter { $0.band.isKillable(at: pressure) }
                #expect(victim?.band != .host)
                if pressure == .low { #expect(victim.map { $0.band <= .idleExtension } ?? true) }
                if pressure == .none { #expect(victim == nil) }
                #expect((victim == nil) == allowed.isEmpty)
                guard let victim else { continue }
                #expect(victim.band == allowed.map(\.band).min())
                for other in allowed where other.band == victim.band && other != victim {
                    #expect(documentedKey(victim) < documentedKey(other))
                }
                #expect(KillPolicy.victim(among: table.shuffled(using: &random), at: pressure) == victim)
                #expect(KillPolicy.victim(among: table.reversed(), at: pressure) == victim)
            }
        }
    }

    /// Over random tables, decision after decision as an episode takes them: every
    /// allowed candidate exactly once (no victim twice, none skipped), bands in order,
    /// the documented order within each band, never a host, never an active extension
    /// at `low`, and the same sequence whatever the input order.
    @Test func randomEpisodesKillEachCandidateOnceInTheDocumentedOrder() {
        var random = SeededRandom(seed: 2025)
        for _ in 0..<5_000 {
            let table = randomTable(using: &random)
            for pressure in PressureLevel.allCases {
                let order = killOrder(table, at: pressure)
                let allowed = table.filter { $0.band.isKillable(at: pressure) }
                #expect(order.count == allowed.count && Set(order) == Set(allowed))
                #expect(!order.contains { $0.band == .host })
                if pressure == .low { #expect(order.allSatisfy { $0.band <= .idleExtension }) }
                for (first, second) in zip(order, order.dropFirst()) {
                    #expect(first.band < second.band || (first.band == second.band && documentedKey(first) < documentedKey(second)))
                }
                #expect(killOrder(table.shuffled(using: &random), at: pressure) == order)
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
