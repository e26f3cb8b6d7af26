import EventLoop
import Glibc
import Testing

/// The loop's timers: one timerfd, the earliest deadline first, rescheduling (also from a
/// timer's own callback), and what a callback does to the rest of its iteration.
@Suite struct EventLoopTimerTests {
    @Test func timersFireInOrderAndOneReschedulesItselfFromItsCallback() throws {
        let loop = try EventLoop()
        var fired: [String] = []
        let start = loop.now
        let late = loop.addTimer(at: start + .milliseconds(40), accuracy: .zero) {
            fired.append("late")
            loop.exit(code: 3)
        }
        var again: EventSource?
        again = loop.addTimer(at: start + .milliseconds(10), accuracy: .zero) {
            fired.append("early")
            if fired.count == 1 { again?.reschedule(at: loop.now + .milliseconds(10)) }
        }
        #expect(try loop.run() == 3)
        #expect(fired == ["early", "early", "late"])
        #expect(MonotonicInstant.current().since(start) >= .milliseconds(40))
        _ = (late, again)
    }

    @Test func aTimerCancelledOrRescheduledByAnEarlierCallbackOfTheIterationDoesNotFireForItsOldDeadline() throws {
        let loop = try EventLoop()
        let start = loop.now
        var fired: [String] = []
        var cancelled: EventSource?
        var moved: EventSource?
        let first = loop.addTimer(at: start + .milliseconds(1), accuracy: .zero) {
            fired.append("first")
            cancelled?.cancel()
            moved?.reschedule(at: loop.now + .milliseconds(30))
        }
        cancelled = loop.addTimer(at: start + .milliseconds(2), accuracy: .zero) { fired.append("cancelled") }
        var movedAt: MonotonicInstant?
        moved = loop.addTimer(at: start + .milliseconds(3), accuracy: .zero) {
            fired.append("moved")
            movedAt = loop.now
            loop.exit()
        }
        // All three are due when the first iteration begins.
        usleep(10_000)
        #expect(try loop.run() == 0)
        #expect(fired == ["first", "moved"])
        #expect(try #require(movedAt).since(start) >= .milliseconds(30))
        _ = first
    }

    @Test func aTimerFreedByAnEarlierCallbackIsSkipped() throws {
        let loop = try EventLoop()
        let start = loop.now
        var fired: [String] = []
        var freed: EventSource?
        let first = loop.addTimer(at: start + .milliseconds(1), accuracy: .zero) {
            fired.append("first")
            freed = nil
        }
        freed = loop.addTimer(at: start + .milliseconds(2), accuracy: .zero) { fired.append("freed") }
        let stop = loop.addTimer(at: start + .milliseconds(20), accuracy: .zero) { loop.exit() }
        usleep(5_000)
        _ = try loop.run()
        #expect(fired == ["first"])
        #expect(freed == nil)
        _ = (first, stop)
    }

    @Test func aTimerFiresNoLaterThanItsAccuracyAllows() throws {
        let loop = try EventLoop()
        let start = loop.now
        var firedAt: MonotonicInstant?
        let timer = loop.addTimer(at: start + .milliseconds(20), accuracy: .milliseconds(30)) {
            firedAt = loop.now
            loop.exit()
        }
        _ = try loop.run()
        let elapsed = try #require(firedAt).since(start)
        #expect(elapsed >= .milliseconds(20))
        // The latest allowed (50 ms), plus scheduling slack on a shared machine.
        #expect(elapsed < .milliseconds(250))
        _ = timer
    }

    /// Coalescing: a wake-up for one timer fires every other timer whose window has begun.
    @Test func aTimerWhoseWindowHasBegunFiresWithTheOneThatWokeTheLoop() throws {
        let loop = try EventLoop()
        let start = loop.now
        var firedAt: [String: MonotonicInstant] = [:]
        let lenient = loop.addTimer(at: start + .milliseconds(5), accuracy: .seconds(10)) { firedAt["lenient"] = loop.now }
        let strict = loop.addTimer(at: start + .milliseconds(30), accuracy: .zero) {
            firedAt["strict"] = loop.now
            loop.exit()
        }
        _ = try loop.run()
        #expect(firedAt.keys.sorted() == ["lenient", "strict"])
        #expect(firedAt["lenient"] == firedAt["strict"])
        #expect(try #require(firedAt["strict"]).since(start) >= .milliseconds(30))
        _ = (lenient, strict)
    }

    @Test func exitStopsTheRestOfTheIteration() throws {
        let loop = try EventLoop()
        let start = loop.now
        var fired = 0
        let timers = (1...3).map { index in
            loop.addTimer(at: start + .microseconds(Int64(index)), accuracy: .zero) {
                fired += 1
                loop.exit(code: 9)
            }
        }
        usleep(2_000)
        #expect(try loop.run() == 9)
        #expect(fired == 1)
        _ = timers
    }

    @Test func nowIsTheTimeTheIterationBegan() throws {
        let loop = try EventLoop()
        var seen: (MonotonicInstant, MonotonicInstant, MonotonicInstant)?
        let timer = loop.addTimer(after: .milliseconds(1), accuracy: .zero) {
            let first = loop.now
            usleep(3_000)
            seen = (first, loop.now, .current())
            loop.exit()
        }
        _ = try loop.run()
        let (first, second, clock) = try #require(seen)
        #expect(first == second)
        #expect(clock.since(first) >= .milliseconds(3))
        _ = timer
    }

    /// A timer far away arms the timerfd once; cancelling the earliest re-arms it for the next.
    @Test func cancellingTheEarliestTimerLetsTheNextOneDecide() throws {
        let loop = try EventLoop()
        let start = loop.now
        var fired: [String] = []
        let earliest = loop.addTimer(at: start + .milliseconds(5), accuracy: .zero) { fired.append("earliest") }
        let next = loop.addTimer(at: start + .milliseconds(15), accuracy: .zero) {
            fired.append("next")
            loop.exit()
        }
        let far = loop.addTimer(at: start + .seconds(3600), accuracy: .zero) { fired.append("far") }
        earliest.cancel()
        _ = try loop.run()
        #expect(fired == ["next"])
        _ = (next, far)
    }

    /// A disarmed timer does not fire, also when it was due in the iteration that disarmed
    /// it; rescheduled, it fires again.
    @Test func aDisarmedTimerFiresOnlyOnceRescheduled() throws {
        let loop = try EventLoop()
        let start = loop.now
        var fired: [String] = []
        var disarmed: EventSource?
        let first = loop.addTimer(at: start + .milliseconds(1), accuracy: .zero) {
            fired.append("first")
            disarmed?.disarm()
        }
        disarmed = loop.addTimer(at: start + .milliseconds(2), accuracy: .zero) {
            fired.append("disarmed")
            loop.exit()
        }
        let rearm = loop.addTimer(at: start + .milliseconds(20), accuracy: .zero) {
            fired.append("rearm")
            disarmed?.reschedule(at: loop.now + .milliseconds(5))
        }
        // Both are due when the first iteration begins.
        usleep(5_000)
        _ = try loop.run()
        #expect(fired == ["first", "rearm", "disarmed"])
        _ = (first, rearm)
    }

    /// The timerfd is left armed when the earliest timer moves later (a request answered
    /// before its deadline): the early wake-up finds nothing due and arms it again.
    @Test func aTimerMovedLaterByAnotherEventFiresAloneAtItsNewDeadline() throws {
        let firedAfter = try fireAfterMovingByAnEvent(from: .milliseconds(5), to: .milliseconds(40))
        #expect(firedAfter >= .milliseconds(40))
    }

    /// A timer moved earlier than the timerfd is set for re-arms it.
    @Test func aTimerMovedEarlierByAnotherEventFiresAtItsNewDeadline() throws {
        let firedAfter = try fireAfterMovingByAnEvent(from: .seconds(3600), to: .milliseconds(10))
        #expect(firedAfter >= .milliseconds(10))
    }

    /// Arms a timer `from` now, moves it to `to` from a pipe's callback (no timer wakes the
    /// loop for it), and returns when it fired; a guard timer ends the test after 5 s.
    private func fireAfterMovingByAnEvent(from: Duration, to: Duration) throws -> Duration {
        let loop = try EventLoop()
        let start = loop.now
        var firedAt: MonotonicInstant?
        let moved = loop.addTimer(at: start + from, accuracy: .zero) {
            firedAt = loop.now
            loop.exit()
        }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        let reader = try loop.addIO(fd: ends[0], events: .readable) { _ in
            _ = read(ends[0], &byte, 1)
            moved.reschedule(at: start + to)
        }
        let guardTimer = loop.addTimer(at: start + .seconds(5), accuracy: .zero) { loop.exit(code: 1) }
        #expect(try loop.run() == 0, "the moved timer did not fire within 5 s")
        reader.cancel()
        _ = guardTimer
        return try #require(firedAt).since(start)
    }
}
