#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A later snapshot of a widget's timeline: the supervisor shows it from `date` on without
/// launching the extension again (WidgetKit's `TimelineEntry`).
public struct TimelineItem<Snapshot: Encodable> {
    public var date: Date
    public var snapshot: Snapshot

    /// `snapshot`, current from `date`.
    public init(date: Date, snapshot: Snapshot) {
        self.date = date
        self.snapshot = snapshot
    }
}
