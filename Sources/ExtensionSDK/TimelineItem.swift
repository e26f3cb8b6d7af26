/// A later snapshot of a widget's timeline: the supervisor shows it from `date` on without
/// launching the extension again (WidgetKit's `TimelineEntry`).
///
/// `date` is a ``UnixTime`` rather than a Foundation `Date`, so that widgets need not load
/// Foundation; with Foundation, `UnixTime(secondsSince1970: date.timeIntervalSince1970)`.
public struct TimelineItem<Snapshot: Encodable> {
    public var date: UnixTime
    public var snapshot: Snapshot

    /// `snapshot`, current from `date`.
    public init(date: UnixTime, snapshot: Snapshot) {
        self.date = date
        self.snapshot = snapshot
    }
}
