import DaemonSupport
import ExtensiondPolicy
import HostProtocol
import WireProtocol

/// One display mode (`modes`) of a widget or of one of its instances: its own snapshot,
/// freshness, cooldown, timeline and scheduled refreshes, so that an `expanded` pull never
/// gets the `compact` content, nor one city another's. The budget is the extension's.
package final class ModeSlot {
    let mode: DisplayMode
    /// `nil` for the widget itself.
    let instance: String?
    package var engine: RefreshEngine<EncodedJSON>
    /// The instance's settings, as a host last gave them; sent with its updates.
    var params: JSONValue?
    var refreshTimer: (any CoordinatorTimer)?
    /// The size of the last pull in this mode, sent with scheduled and manual updates too.
    var maxSize = Size(width: 320, height: 160)
    /// What the last `newData` asked for, passed to hosts with the snapshot.
    var preferredSize: Size?
    /// The maximum of the place the slot is shown in (`[places]`), when a host named one:
    /// a larger `preferredSize` is clamped to it.
    var placeLimit: Size?
    /// A user added the instance (`addInstance`): it is not counted among the made-up ones.
    var isAdded = false
    /// The maximum of the place a user added the instance to: its bound when a pull names none.
    var addedPlaceLimit: Size?
    /// Wall-clock milliseconds minus monotonic ones when its timeline came (or when the slot
    /// was made): timeline dates go both ways with it, so a pull and a push of one entry
    /// name the same `date`.
    var wallOffsetMs: Int64
    /// A host's `execute` on this card, sent in place of the slot's next update.
    var execution: PendingExecution?
    /// Its last answer line, shared by the hosts that pull it; made at the first pull, as
    /// most configured modes are never shown.
    lazy var answerLines = SnapshotLineCache()
    /// Pulls waiting for the engine's answer.
    var pendingPulls: [PullToken: (PullOutcome) -> Void] = [:]
    /// Pulls that may be answered from an expired snapshot, and what to tell their host
    /// once the update revalidating it is over.
    var revalidations: [PullToken: (PullOutcome) -> Void] = [:]

    init(mode: DisplayMode, instance: String? = nil, engine: RefreshEngine<EncodedJSON>, preferredSize: Size?, wallOffsetMs: Int64) {
        self.wallOffsetMs = wallOffsetMs
        self.mode = mode
        self.instance = instance
        self.engine = engine
        self.preferredSize = preferredSize
    }

    var key: SlotKey { SlotKey(mode: mode, instance: instance) }

    /// What is saved in `state_dir` for this mode.
    var saved: SavedMode { SavedMode(record: engine.record, preferredSize: preferredSize) }
}

/// Which snapshot slot: a display mode of the widget or of one of its instances.
package struct SlotKey: Hashable {
    package var mode: DisplayMode
    package var instance: String?

    package init(mode: DisplayMode, instance: String?) {
        self.mode = mode
        self.instance = instance
    }

    /// The mode by its case, not by its raw `String` (a raw-value enum's own hash): every
    /// pull looks its slot up.
    package func hash(into hasher: inout Hasher) {
        switch mode {
        case .compact: hasher.combine(0)
        case .expanded: hasher.combine(1)
        }
        hasher.combine(instance)
    }
}

/// The persisted part of a ``ModeSlot``.
package struct SavedMode: Codable {
    var record: RefreshRecord<EncodedJSON>
    var preferredSize: Size?
}
