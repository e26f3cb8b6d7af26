import ExtensiondPolicy
import WireProtocol

/// One display mode of a widget (`modes`): its own snapshot, freshness, cooldown and
/// scheduled refreshes, so that an `expanded` pull never gets the `compact` content.
final class ModeSlot {
    let mode: DisplayMode
    var engine: RefreshEngine<EncodedJSON>
    var refreshTimer: (any CoordinatorTimer)?
    /// The size of the last pull in this mode, sent with scheduled and manual updates too.
    var maxSize = Size(width: 320, height: 160)
    /// What the last `newData` asked for, passed to hosts with the snapshot.
    var preferredSize: Size?
    /// Pulls waiting for the engine's answer.
    var pendingPulls: [PullToken: (PullOutcome) -> Void] = [:]
    /// Pulls that may be answered from an expired snapshot, and what to tell their host
    /// once the update revalidating it is over.
    var revalidations: [PullToken: (PullOutcome) -> Void] = [:]

    init(mode: DisplayMode, engine: RefreshEngine<EncodedJSON>, preferredSize: Size?) {
        self.mode = mode
        self.engine = engine
        self.preferredSize = preferredSize
    }

    /// What is saved in `state_dir` for this mode.
    var saved: SavedMode { SavedMode(record: engine.record, preferredSize: preferredSize) }
}

/// The persisted part of a ``ModeSlot``.
struct SavedMode: Codable {
    var record: RefreshRecord<EncodedJSON>
    var preferredSize: Size?
}
