import Testing

@testable import ExtensionSDK

#if canImport(Glibc)
import Glibc
#endif

/// The times a widget author writes without Foundation: `UnixTime.now`, a duration later,
/// and how the SDK puts them on the wire.
@Suite struct WidgetTimeTests {
    struct ClockWidget: Widget {
        mutating func update(mode: DisplayMode, maxSize: Size, reason: UpdateReason, context: ExtensionContext)
            -> UpdateResult<String>
        {
            .noData
        }
    }

    let start = UnixTime(secondsSince1970: 1_795_334_400)

    @Test func aDurationLaterOrEarlier() {
        #expect(start + .seconds(30) == UnixTime(secondsSince1970: 1_795_334_430))
        #expect(start + .milliseconds(250) == UnixTime(secondsSince1970: 1_795_334_400.25))
        #expect(start + .seconds(-3_600) == UnixTime(secondsSince1970: 1_795_330_800))
        #expect(start + .zero == start)
        #expect(RFC3339.string(from: start + .seconds(90) + .milliseconds(500)) == "2026-11-22T08:01:30.500Z")
    }

    @Test func nowIsTheWallClock() {
        let before = Self.realTime()
        let now = UnixTime.now.secondsSince1970
        let after = Self.realTime()
        #expect(before <= now && now <= after)
    }

    /// CLOCK_REALTIME in seconds. Not `time()`: it reads the coarse clock, which lags the
    /// real one by up to a tick, so across a second's boundary it could still say the last.
    static func realTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    @Test func timelineDatesAndReloadHintGoOnTheWireAsGiven() {
        let timeline = (1...3).map { TimelineItem(date: start + .seconds($0), snapshot: "t+\($0)") }
        let result = WidgetHandler<ClockWidget>.message(
            for: .newData("t", reload: .after(start + .seconds(600)), timeline: timeline), id: 7)
        #expect(
            result
                == .init(
                    id: 7, result: .newData, snapshot: "t", reload: .after(UnixTime(secondsSince1970: 1_795_335_000)),
                    timeline: [
                        TimelineEntry(date: UnixTime(secondsSince1970: 1_795_334_401), snapshot: "t+1"),
                        TimelineEntry(date: UnixTime(secondsSince1970: 1_795_334_402), snapshot: "t+2"),
                        TimelineEntry(date: UnixTime(secondsSince1970: 1_795_334_403), snapshot: "t+3"),
                    ]))
    }

    @Test func aTimelineOutOfOrderFailsTheUpdate() {
        let timeline = [TimelineItem(date: start + .seconds(2), snapshot: "b"), TimelineItem(date: start + .seconds(1), snapshot: "a")]
        let result = WidgetHandler<ClockWidget>.message(for: .newData("now", timeline: timeline), id: 8)
        #expect(result == .init(id: 8, result: .failed, error: "timeline dates must ascend"))
    }
}
