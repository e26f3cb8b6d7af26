import ExtensionSDK

#if canImport(Glibc)
import Glibc
#endif

/// Content that changes on every update: the local time, the 1-minute load average and a
/// counter of updates kept in the shared defaults of `group.demo` (or in the process when
/// the supervisor refuses the group). Compact mode shows less than expanded mode. The clock
/// ticks between updates through a timeline of the next seconds, which the supervisor shows
/// without launching the widget.
struct DemoWidget: Widget {
    static let group = "group.demo"
    static let counterKey = "counter"
    /// Seconds of clock in the timeline of each update (the shipped interval is 30 s).
    static let timelineSeconds = 29

    /// The last counter value, used on its own once the shared store has failed.
    private var count = 0
    private var counterStore = CounterStore.sharedDefaults

    mutating func update(mode: DisplayMode, maxSize: Size, reason: UpdateReason, context: ExtensionContext)
        -> UpdateResult<DemoSnapshot>
    {
        count = nextCount(context: context)
        let now = LocalTime.nowSeconds
        let load = LoadAverage.read()
        let timeline = (1...Self.timelineSeconds).map { offset in
            let seconds = now + time_t(offset)
            return TimelineItem(
                date: UnixTime(secondsSince1970: Double(seconds)),
                snapshot: snapshot(at: LocalTime.at(seconds), mode: mode, load: load, reason: reason))
        }
        return .newData(snapshot(at: LocalTime.at(now), mode: mode, load: load, reason: reason), timeline: timeline)
    }

    /// What the widget shows at `time`.
    private func snapshot(at time: LocalTime, mode: DisplayMode, load: LoadAverage?, reason: UpdateReason) -> DemoSnapshot {
        let loadText = load.map { "load \(Self.twoDecimals($0.oneMinute))" } ?? "load n/a"
        var snapshot = DemoSnapshot(text: "\(time.clock) · \(loadText) · #\(count)", time: time.clock, count: count)
        if mode == .expanded {
            snapshot.date = time.date
            snapshot.load = load.map { [$0.oneMinute, $0.fiveMinutes, $0.fifteenMinutes] }
            snapshot.counterStore = counterStore.rawValue
            snapshot.reason = reason.rawValue
        }
        return snapshot
    }

    /// Increments the shared counter, falling back to the in-process one for good on the
    /// first error (for example when the app has no `group.demo`).
    private mutating func nextCount(context: ExtensionContext) -> Int {
        guard counterStore == .sharedDefaults else { return count + 1 }
        let defaults = context.defaults(group: Self.group)
        do {
            let next = (try defaults.get(Self.counterKey)?.intValue ?? count) + 1
            try defaults.set(Self.counterKey, to: .number(Double(next)))
            return next
        } catch {
            counterStore = .process
            return count + 1
        }
    }

    private static func twoDecimals(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// Where the counter lives.
enum CounterStore: String {
    case sharedDefaults = "group.demo"
    case process
}

/// The widget's snapshot; fields left `nil` are omitted (compact mode).
struct DemoSnapshot: Encodable {
    var text: String
    var time: String
    var count: Int
    /// Where a tap on the widget leads: the demo app's details, opened without the widget.
    var link = "demo://details"
    var date: String?
    /// The 1-, 5- and 15-minute load averages.
    var load: [Double]?
    var counterStore: String?
    var reason: String?
}
