import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// ``PressureDetection``: no crossing of the low or warn watermark goes without an episode, in
/// virtual time against a model of the v1 usage thresholds (issue 19: a slow crossing with
/// no event and no kill).
@Suite struct PressureDetectionTests {
    static let mebibyte: UInt64 = 1 << 20
    /// The watermark test's budget: 300M, low 85%, critical 95%.
    static let thresholds = PressureThresholds(budget: 300 * mebibyte, low: 0.85, critical: 0.95)
    typealias Detection = PressureDetection<Int>

    /// The order of the fresh-clone failure (run 1, usage 288 MB past `low` with no event):
    /// the episode of the warn threshold ends with the unmapped cache 1.2M away from the
    /// thresholds' offset, so they move; registering them takes tens of milliseconds
    /// (`synchronize_rcu` per threshold), the working set grows past the re-check band
    /// meanwhile, and the kernel counts the new re-check threshold as crossed already.
    /// Only a reading taken after the move can see it.
    @Test func aCrossingDuringTheThresholdMoveIsSeenByAReadingAfterIt() {
        var detection = Detection(usageNoise: 512 << 10, moveSlack: Self.mebibyte)
        detection.armed(Self.thresholds, usageThresholdOffset: 0)
        #expect(detection.handle(.trigger(1, byStall: false)) == [.startEpisode(1)])
        let atWarn = MemoryReading(usage: 236_322_816, workingSet: 235_032_576)
        #expect(detection.handle(.episodeEnded(atWarn)) == [.moveThresholds(offset: atWarn.unmappedCache)])
        #expect(!Self.thresholds.needsRecheck(workingSet: atWarn.workingSet), "the reading before the move is below the re-check band")
        #expect(detection.handle(.thresholdsMoved(true)) == [.readTree])
        let afterMove = MemoryReading(usage: 262_000_000, workingSet: 260_709_760)
        #expect(detection.handle(.reading(afterMove)) == [.armRecheck])
        #expect(detection.usageThresholdOffset == atWarn.unmappedCache)
        #expect(detection.isIdle)
    }

    /// The same for the warn watermark (seen under load: usage 201M against a 128M `warn`,
    /// no warning and no trim until a reload): the working set crosses `warn` while the
    /// thresholds move, the new warn threshold counts as crossed already, and the tree sits
    /// below the re-check band, so no threshold is left to announce it. The reading after
    /// the move must be re-checked; one back under `warn` too (the warning is re-armed there).
    @Test func aWarnCrossingDuringTheThresholdMoveIsSeenByAReadingAfterIt() {
        let warn = Self.thresholds.warnBytes
        for (before, after) in [(warn - 20 * Self.mebibyte, warn + Self.mebibyte), (warn + Self.mebibyte, warn - Self.mebibyte)] {
            var detection = Detection(usageNoise: 512 << 10, moveSlack: Self.mebibyte)
            detection.armed(Self.thresholds, usageThresholdOffset: 0)
            #expect(detection.handle(.trigger(1, byStall: false)) == [.startEpisode(1)])
            let ended = MemoryReading(usage: before + 30 * Self.mebibyte, workingSet: before)
            #expect(detection.handle(.episodeEnded(ended)) == [.moveThresholds(offset: ended.unmappedCache)])
            #expect(detection.handle(.thresholdsMoved(true)) == [.readTree])
            let afterMove = MemoryReading(usage: after + 30 * Self.mebibyte, workingSet: after)
            #expect(!detection.needsRecheck(afterMove), "below the re-check band")
            #expect(detection.handle(.reading(afterMove)) == [.armRecheck], "working set \(before) → \(after), warn \(warn)")
        }
    }

    /// A trigger that comes while an episode waits for its victim starts one more episode
    /// when that one ends; a stall trigger is kept over any other, and nothing is started
    /// twice.
    @Test func aTriggerDuringAnEpisodeStartsAnotherWhenItEnds() {
        var detection = Detection(usageNoise: 0, moveSlack: Self.mebibyte)
        detection.armed(Self.thresholds, usageThresholdOffset: nil)
        #expect(detection.handle(.trigger(1, byStall: false)) == [.startEpisode(1)])
        #expect(detection.handle(.trigger(2, byStall: false)) == [])
        #expect(detection.handle(.trigger(3, byStall: true)) == [])
        #expect(detection.handle(.trigger(4, byStall: false)) == [])
        let below = MemoryReading(usage: 100 * Self.mebibyte, workingSet: 100 * Self.mebibyte)
        #expect(detection.handle(.episodeEnded(below)) == [.startEpisode(3)])
        #expect(detection.handle(.episodeEnded(below)) == [])
        #expect(detection.isIdle)
    }

    /// A re-check is armed once while the working set is in the band or past it, and the
    /// next one only after it came; a reading just under the v1 re-check usage threshold,
    /// within the kernel's per-CPU charge batches, is re-checked too.
    @Test func rechecksFollowTheBandAndTheUsageNoise() {
        let noise: UInt64 = 512 << 10
        var detection = Detection(usageNoise: noise, moveSlack: Self.mebibyte)
        detection.armed(Self.thresholds, usageThresholdOffset: 0)
        let band = Self.thresholds.recheckBytes
        let inBand = MemoryReading(usage: band, workingSet: band)
        _ = detection.handle(.trigger(1, byStall: false))
        #expect(detection.handle(.episodeEnded(inBand)) == [.armRecheck])
        _ = detection.handle(.trigger(2, byStall: false))
        #expect(detection.handle(.episodeEnded(inBand)) == [], "one re-check armed at a time")
        #expect(detection.handle(.recheckDue(3)) == [.startEpisode(3)])
        #expect(detection.handle(.episodeEnded(inBand)) == [.armRecheck])

        let withinNoise = MemoryReading(usage: band - noise, workingSet: band - noise)
        let pastNoise = MemoryReading(usage: band - noise - 1, workingSet: band - noise - 1)
        #expect(detection.needsRecheck(withinNoise) && !detection.needsRecheck(pastNoise))
        detection.armed(Self.thresholds, usageThresholdOffset: nil)
        #expect(!detection.needsRecheck(withinNoise), "v2 has no usage thresholds: the band alone")
        detection.armed(nil, usageThresholdOffset: 0)
        #expect(!detection.needsRecheck(MemoryReading(usage: .max, workingSet: .max)), "no budget: nothing to re-check")
    }

    /// Readings at the extremes of their domain: nothing traps, and a tree at `UInt64.max`
    /// is re-checked whatever the offset.
    @Test func extremeReadingsAndOffsetsSaturate() {
        for offset: UInt64 in [0, 1, Self.mebibyte, .max - 1, .max] {
            var detection = Detection(usageNoise: .max, moveSlack: .max)
            detection.armed(Self.thresholds, usageThresholdOffset: offset)
            #expect(detection.needsRecheck(MemoryReading(usage: .max, workingSet: .max)))
            #expect(detection.needsRecheck(MemoryReading(usage: 0, workingSet: 0)), "noise at max covers everything")
            _ = detection.handle(.trigger(1, byStall: false))
            #expect(detection.handle(.episodeEnded(MemoryReading(usage: 0, workingSet: .max))) == [.armRecheck])
        }
    }

    /// The daemon against a model of the kernel, over random growth, cache, thresholds'
    /// registration times and check granularity (extremes included): once the working set
    /// is past `low`, an episode reads it within the re-check interval plus what the model
    /// itself delays (a move, a kernel check).
    @Test(arguments: seeds(400))
    func noCrossingOfLowGoesUnread(seed: UInt64) {
        noCrossingGoesUnread(of: Self.thresholds.lowBytes, named: "low", seed: seed)
    }

    /// The same for `warn` (each reading past it warns and trims), from a start below it.
    @Test(arguments: seeds(400))
    func noCrossingOfWarnGoesUnread(seed: UInt64) {
        noCrossingGoesUnread(of: Self.thresholds.warnBytes, named: "warn", seed: seed)
    }

    private func noCrossingGoesUnread(of watermark: UInt64, named name: String, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var world = KernelModel(
            thresholds: Self.thresholds, cache: [0, Self.mebibyte / 2, 3 * Self.mebibyte / 2, 40 * Self.mebibyte].randomElement(using: &random)!,
            growthPerMillisecond: [16 << 10, 128 << 10, 4 * Self.mebibyte, 64 * Self.mebibyte].randomElement(using: &random)!,
            moveMilliseconds: [0, 1, 17, 60].randomElement(using: &random)!,
            checkBytes: [4096, 512 << 10, 8 * Self.mebibyte].randomElement(using: &random)!,
            start: UInt64.random(in: watermark - 155 * Self.mebibyte...watermark - 25 * Self.mebibyte, using: &random))
        let (crossedAt, readAt) = world.run(until: watermark)
        let bound = KernelModel.recheckMilliseconds + world.moveMilliseconds + world.checkDelay + 1
        #expect(
            readAt != nil && readAt! - crossedAt <= bound,
            "seed \(seed): \(name) crossed at \(crossedAt) ms, read past it at \(readAt.map(String.init) ?? "never"); \(world)")
    }
}

/// A tree whose working set grows steadily from `start` with a constant unmapped cache,
/// watched by v1 usage thresholds as the kernel keeps them: a threshold fires when a check
/// (each `checkBytes` of growth) finds usage on the other side of it than at the last
/// check or at its registration; one registered while usage is past it never fires for
/// that crossing. Moving the thresholds takes `moveMilliseconds`; they are registered at
/// its end. Episodes only read (a kill ends the run).
struct KernelModel: CustomStringConvertible {
    static let recheckMilliseconds: UInt64 = 10
    let thresholds: PressureThresholds
    let cache: UInt64
    let growthPerMillisecond: UInt64
    let moveMilliseconds: UInt64
    let checkBytes: UInt64
    let start: UInt64
    var now: UInt64 = 0
    /// What ``run(until:)`` waits for an episode to read the working set past.
    private(set) var watermark: UInt64 = 0
    private(set) var registered: [(bytes: UInt64, above: Bool)] = []
    private(set) var lastCheck: UInt64 = 0
    private(set) var recheckAt: UInt64?
    private(set) var detection = PressureDetection<Int>(usageNoise: 0, moveSlack: 1 << 20)
    private(set) var triggers = 0

    var description: String {
        "cache \(cache), growth \(growthPerMillisecond)/ms, move \(moveMilliseconds) ms, check every \(checkBytes)"
    }

    /// Milliseconds from a crossing to the kernel's next check.
    var checkDelay: UInt64 { (checkBytes + growthPerMillisecond - 1) / growthPerMillisecond }

    var workingSet: UInt64 { start + growthPerMillisecond * now }
    var reading: MemoryReading { MemoryReading(usage: workingSet + cache, workingSet: workingSet) }

    /// Runs until an episode reads the working set past `watermark`, or until a second after
    /// it crossed: when it crossed and when it was read, in milliseconds.
    mutating func run(until watermark: UInt64) -> (crossedAt: UInt64, readAt: UInt64?) {
        self.watermark = watermark
        let crossedAt = (watermark - min(watermark, start) + growthPerMillisecond - 1) / growthPerMillisecond
        register(offset: 0)
        detection.armed(thresholds, usageThresholdOffset: 0)
        var actions = detection.handle(.trigger(next(), byStall: false))
        while now < crossedAt + 1000 + moveMilliseconds + checkDelay {
            if let read = execute(&actions) { return (crossedAt, read) }
            now += 1
            if let due = recheckAt, due <= now {
                recheckAt = nil
                actions = detection.handle(.recheckDue(next()))
            } else if workingSet + cache >= lastCheck + checkBytes {
                lastCheck = workingSet + cache
                actions = fired() ? detection.handle(.trigger(next(), byStall: false)) : []
            }
        }
        return (crossedAt, nil)
    }

    private mutating func next() -> Int {
        triggers += 1
        return triggers
    }

    /// Executes the actions as the daemon does; the time of a reading past `low`, if one was taken.
    private mutating func execute(_ actions: inout [PressureDetection<Int>.Action]) -> UInt64? {
        while !actions.isEmpty {
            switch actions.removeFirst() {
            case .startEpisode:
                if workingSet >= watermark { return now }
                actions += detection.handle(.episodeEnded(reading))
            case .moveThresholds(let offset):
                now += moveMilliseconds
                register(offset: offset)
                actions += detection.handle(.thresholdsMoved(true))
            case .readTree:
                actions += detection.handle(.reading(reading))
            case .armRecheck:
                recheckAt = now + Self.recheckMilliseconds
            }
        }
        return nil
    }

    private mutating func register(offset: UInt64) {
        let usage = workingSet + cache
        registered = [thresholds.warnBytes, thresholds.recheckBytes, thresholds.criticalBytes].map { ($0 + offset, usage >= $0 + offset) }
    }

    /// A check: whether any threshold was crossed since the last one.
    private mutating func fired() -> Bool {
        let usage = workingSet + cache
        var crossed = false
        for index in registered.indices where (usage >= registered[index].bytes) != registered[index].above {
            registered[index].above.toggle()
            crossed = true
        }
        return crossed
    }
}
