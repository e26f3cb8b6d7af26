import EventLoop
import ExtensiondTestSupport
import Glibc
import Testing

/// Descriptor sources: level-triggered readiness, changing the events waited for, and
/// sources cancelled or freed while a batch of events is being dispatched.
@Suite struct EventLoopDescriptorTests {
    private func readable() -> DescriptorPair { readableSocketPair() }

    @Test func readinessIsLevelTriggered() throws {
        let loop = try EventLoop()
        let pair = readable()
        var calls = 0
        let source = try loop.addIO(fd: pair.parentEnd, events: .readable) { events in
            #expect(events.contains(.readable))
            calls += 1
            if calls == 3 { loop.exit() }
        }
        _ = try loop.run()
        #expect(calls == 3)
        _ = source
    }

    @Test func aSourceCancelledByAnEarlierCallbackOfTheBatchIsSkipped() throws {
        let loop = try EventLoop()
        let pairs = [readable(), readable()]
        var sources: [EventSource?] = [nil, nil]
        var fired: [Int] = []
        for index in 0..<2 {
            sources[index] = try loop.addIO(fd: pairs[index].parentEnd, events: .readable) { _ in
                fired.append(index)
                var byte: UInt8 = 0
                _ = read(pairs[index].parentEnd, &byte, 1)
                sources[1 - index]?.cancel()
            }
        }
        let stop = loop.addTimer(after: .milliseconds(20)) { loop.exit() }
        _ = try loop.run()
        #expect(fired.count == 1)
        _ = stop
    }

    @Test func aSourceFreedByAnEarlierCallbackOrByItsOwnIsNotTouchedAgain() throws {
        let loop = try EventLoop()
        let pairs = [readable(), readable()]
        var sources: [EventSource?] = [nil, nil]
        var fired: [Int] = []
        for index in 0..<2 {
            sources[index] = try loop.addIO(fd: pairs[index].parentEnd, events: .readable) { _ in
                fired.append(index)
                // Frees the other source and this one, without reading: level-triggered, a
                // source still registered would fire again.
                sources = [nil, nil]
            }
        }
        let stop = loop.addTimer(after: .milliseconds(20)) { loop.exit() }
        _ = try loop.run()
        #expect(fired.count == 1)
        _ = stop
    }

    @Test func changedEventsApplyAtOnce() throws {
        let loop = try EventLoop()
        let pair = DescriptorPair.socketPair()
        var seen: [IOEvents] = []
        var source: EventSource?
        source = try loop.addIO(fd: pair.parentEnd, events: .writable) { events in
            seen.append(events)
            // Waits for nothing more: an idle socket must not fire.
            source?.setIOEvents([])
        }
        let stop = loop.addTimer(after: .milliseconds(20)) { loop.exit() }
        _ = try loop.run()
        #expect(seen == [.writable])
        _ = stop
    }
}

/// A socket pair whose parent end is readable (one byte waits).
func readableSocketPair() -> DescriptorPair {
    let pair = DescriptorPair.socketPair()
    _ = write(pair.childEnd, "x", 1)
    return pair
}
