/// A widget extension: produces snapshots for hosts to display.
///
/// ```swift
/// struct Clock: Widget {
///     func update(mode: DisplayMode, maxSize: Size, reason: UpdateReason, context: ExtensionContext)
///         -> UpdateResult<[String: String]>
///     {
///         .newData(["time": "12:00"])
///     }
/// }
/// ExtensionRuntime.run(Clock())
/// ```
public protocol Widget {
    /// What a snapshot looks like; encoded as JSON for hosts.
    associatedtype Snapshot: Encodable

    /// Produces content for a host's `mode` and `maxSize`, as
    /// `widgetPerformUpdateWithCompletionHandler` does; `context.instance` and
    /// `context.params` name the instance updated, when a host pulled one. Runs on the
    /// runtime's only thread.
    mutating func update(mode: DisplayMode, maxSize: Size, reason: UpdateReason, context: ExtensionContext)
        -> UpdateResult<Snapshot>

    /// A host's `Action.Execute` on the widget's card (a button, a toggle): do what `verb`
    /// says with `data` and answer the new content, as an update does. Optional: by default
    /// the widget is updated (reason `manual`).
    mutating func execute(verb: String, data: JSONValue, mode: DisplayMode, maxSize: Size, context: ExtensionContext)
        -> UpdateResult<Snapshot>

    /// The extension's memory crossed its `memory_high`: release caches. Optional.
    mutating func memoryWarning(current: UInt64, high: UInt64, context: ExtensionContext)
}

extension Widget {
    /// Updates the widget unless it implements its actions.
    public mutating func execute(verb: String, data: JSONValue, mode: DisplayMode, maxSize: Size, context: ExtensionContext)
        -> UpdateResult<Snapshot>
    {
        update(mode: mode, maxSize: maxSize, reason: .manual, context: context)
    }

    /// Does nothing unless the extension implements it.
    public mutating func memoryWarning(current: UInt64, high: UInt64, context: ExtensionContext) {}
}

/// A widget's answer to an update, as NCUpdateResult.
public enum UpdateResult<Snapshot: Encodable> {
    /// New content, with an optional hint for the next scheduled refresh, the size the
    /// content would like to be shown at (`preferredContentSize`), passed to hosts, and a
    /// timeline of later snapshots (ascending dates, at most 256), each shown at its date
    /// without a new update; `reload: .atEnd` then means after the last one.
    case newData(Snapshot, reload: ReloadHint? = nil, preferredSize: Size? = nil, timeline: [TimelineItem<Snapshot>] = [])
    /// Nothing changed: hosts keep the previous snapshot.
    case noData
    /// The update failed: hosts keep the previous snapshot, marked stale with this message.
    case failed(String)
}
