import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// `pressure.trim_wait` (``PressureEpisode/trimWait``) in virtual time: suspended
/// extensions a trim asked to exit at random instants, each exiting after a random delay
/// from that request (or never), the tree growing by random steps, new triggers at random
/// instants during the episode. Every value at its extremes too: a wait of 0 and of 5 s,
/// an exit at once, one nanosecond before and at the bound, never.
@Suite struct PressureEpisodeTrimWaitTests {
    static let mebibyte: UInt64 = 1 << 20
    static let thresholds = PressureEpisodeStepTests.thresholds
    static let timeout = PressureEpisodeStepTests.timeout
    static let start = Instant.at(100)

    struct Trimmed {
        var id: String
        var asked: Instant
        /// From `asked`; `nil`: never exits by itself.
        var exitDelay: Duration?
        var bytes: UInt64
        var killedAt: Instant?

        func exited(by instant: Instant) -> Bool {
            exitDelay.map { asked + $0 <= instant } ?? false
        }
    }

    struct Outcome {
        var trimmed: [Trimmed]
        var waits: [(id: String, until: Instant)] = []
        var kills: [(id: String, level: PressureLevel, at: Instant)] = []
    }

    /// Drives one episode to its end: the tree is `baseline` (from `rise.at` on, `rise.to`)
    /// plus every trimmed extension not gone; a trigger at each of `triggers` that falls
    /// inside a wait ends it there.
    static func run(
        trimWait: Duration, trimmed: [Trimmed], baseline: UInt64, rise: (at: Instant, to: UInt64)? = nil, triggers: [Instant]
    ) -> Outcome {
        var outcome = Outcome(trimmed: trimmed)
        var now = start
        func gone(_ item: Trimmed) -> Bool { item.killedAt != nil || item.exited(by: now) }
        var episode = PressureEpisode(
            triggeredAt: start, byStall: false, thresholds: thresholds, warning: PressureWarning(), emptyTimeout: timeout, trimWait: trimWait)
        var queue = episode.start()
        var turns = 0
        while let action = queue.first {
            queue.removeFirst()
            turns += 1
            precondition(turns < 10_000, "the episode did not end")
            now = now + .microseconds(5)
            switch action {
            case .readWorkingSet:
                let base = rise.map { now >= $0.at ? $0.to : baseline } ?? baseline
                let working = outcome.trimmed.filter { !gone($0) }.reduce(base) { $0 + $1.bytes }
                queue += episode.handle(.workingSet(working))
            case .listCandidates(let level):
                let candidates = outcome.trimmed.filter { !gone($0) }.map {
                    KillCandidate(id: $0.id, band: .suspendedExtension, priority: 0, lastUsed: .at(0), residentBytes: $0.bytes, exitAskedAt: $0.asked)
                }
                queue += episode.handle(.candidates(candidates, at: now))
            case .kill(let victim, let level):
                let index = outcome.trimmed.firstIndex { $0.id == victim.id }!
                outcome.trimmed[index].killedAt = now
                outcome.kills.append((victim.id, level, now))
                queue += episode.handle(.signalled(at: now))
            case let .wait(victim, until):
                let item = outcome.trimmed.first { $0.id == victim.id }!
                let exit = item.killedAt != nil ? now : item.exitDelay.map { max(now, item.asked + $0) }
                let trigger = triggers.first { $0 > now && $0 < until }
                if item.killedAt == nil { outcome.waits.append((victim.id, until)) }
                if let exit, exit < until, trigger.map({ exit <= $0 }) ?? true {
                    now = exit
                    queue += episode.handle(.emptied(at: now))
                } else if let trigger, item.killedAt == nil {
                    now = trigger
                    queue += episode.handle(.triggered(at: now))
                } else {
                    now = max(now, until)
                    queue += episode.handle(.deadlinePassed(at: now))
                }
            case .reclaim:
                queue += episode.handle(.reclaimed)
            case .warn, .trim, .record, .done:
                break
            }
        }
        return outcome
    }

    static func randomCase(_ random: inout SeededRandom) -> (Duration, [Trimmed], UInt64, [Instant]) {
        let waits: [Duration] = [.zero, .nanoseconds(1), .milliseconds(100), .milliseconds(250), .seconds(5)]
        let trimWait = Bool.random(using: &random) ? waits.randomElement(using: &random)! : .milliseconds(Int64.random(in: 0...5000, using: &random))
        let trimmed = (0..<Int.random(in: 0...4, using: &random)).map { index in
            let asked =
                start - .milliseconds(Int64.random(in: 0...6000, using: &random)) + (Int.random(in: 0..<6, using: &random) == 0 ? .milliseconds(1) : .zero)
            let delays: [Duration?] = [.zero, max(.zero, trimWait - .nanoseconds(1)), trimWait, nil, .milliseconds(Int64.random(in: 0...6000, using: &random))]
            return Trimmed(
                id: "t\(index)", asked: asked, exitDelay: delays.randomElement(using: &random)!,
                bytes: [0, mebibyte, 20 * mebibyte, 256 * mebibyte].randomElement(using: &random)!)
        }
        let baselines = [0, thresholds.warnBytes, thresholds.lowBytes - 1, thresholds.lowBytes, thresholds.criticalBytes]
        let baseline = Bool.random(using: &random) ? baselines.randomElement(using: &random)! : UInt64.random(in: 0...(260 * mebibyte), using: &random)
        let triggers = (0..<Int.random(in: 0...3, using: &random)).map { _ in start + .milliseconds(Int64.random(in: 0...6000, using: &random)) }.sorted()
        return (trimWait, trimmed, baseline, triggers)
    }

    /// A trimmed extension is killed at `low` only once its bound (`trim_wait` after its
    /// request) has passed with it still there; never before its bound at `low`, never
    /// after it; a new trigger during the wait re-reads the tree and never moves the bound.
    @Test(arguments: seeds(3000))
    func atLowATrimmedExtensionIsKilledOnlyAfterItsBound(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let (trimWait, trimmed, baseline, triggers) = Self.randomCase(&random)
        let outcome = Self.run(trimWait: trimWait, trimmed: trimmed, baseline: baseline, triggers: triggers)
        for kill in outcome.kills {
            let item = outcome.trimmed.first { $0.id == kill.id }!
            #expect(!item.exited(by: kill.at), "seed \(seed): \(kill.id) killed after it exited")
            if kill.level == .low {
                #expect(kill.at >= item.asked + trimWait || item.asked >= Self.start, "seed \(seed): \(kill.id) killed at low before its bound")
            }
        }
        for wait in outcome.waits {
            let item = outcome.trimmed.first { $0.id == wait.id }!
            #expect(wait.until == item.asked + trimWait, "seed \(seed): a wait to another bound than trim_wait after the request")
        }
        #expect(outcome.kills.count == Set(outcome.kills.map(\.id)).count, "seed \(seed): a victim killed twice")
    }

    /// A wait of 0 is jetsam's order: at `low` a trimmed extension still there is killed
    /// without a wait.
    @Test func aWaitOfZeroKillsAtOnce() {
        let item = Trimmed(id: "t", asked: Self.start - .milliseconds(10), exitDelay: .milliseconds(20), bytes: 20 * Self.mebibyte)
        let outcome = Self.run(trimWait: .zero, trimmed: [item], baseline: Self.thresholds.lowBytes, triggers: [])
        #expect(outcome.waits.isEmpty && outcome.kills.map(\.id) == ["t"])
    }

    /// 250 ms: the one asked 10 ms before the episode exits 200 ms after its request and is
    /// not killed.
    @Test func oneThatExitsWithinTheWaitIsNotKilled() {
        let item = Trimmed(id: "t", asked: Self.start - .milliseconds(10), exitDelay: .milliseconds(200), bytes: 20 * Self.mebibyte)
        let outcome = Self.run(trimWait: .milliseconds(250), trimmed: [item], baseline: Self.thresholds.lowBytes, triggers: [])
        #expect(outcome.kills.isEmpty && outcome.waits.map(\.until) == [item.asked + .milliseconds(250)])
    }

    /// The tree crosses `critical` during the wait: the trigger ends the wait and the
    /// trimmed extension is killed then, not at the end of its bound.
    @Test func aCriticalTriggerDuringTheWaitKillsAtOnce() {
        let item = Trimmed(id: "t", asked: Self.start - .milliseconds(10), exitDelay: nil, bytes: 20 * Self.mebibyte)
        let rise = Self.start + .milliseconds(50)
        // At `low` when the episode starts, past `critical` once the foreground app grew.
        let outcome = Self.run(
            trimWait: .seconds(5), trimmed: [item], baseline: Self.thresholds.lowBytes, rise: (rise, Self.thresholds.criticalBytes), triggers: [rise])
        #expect(outcome.kills.map(\.id) == ["t"])
        #expect(outcome.kills.first.map { $0.level == .critical && $0.at < rise + .milliseconds(1) } ?? false, "\(outcome.kills)")
    }
}
