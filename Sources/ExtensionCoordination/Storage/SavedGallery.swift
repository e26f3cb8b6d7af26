import DaemonSupport
import HostProtocol
import Sockets
import WireProtocol

/// `<state_dir>/gallery.json`.
package struct SavedGallery: Codable, Equatable {
    /// By extension id, then instance name.
    package var instances: [String: [String: AddedInstance]] = [:]
    /// By `HOST/PLACE` (the place empty when the host named none).
    package var arrangements: [String: [HostToSupervisor.Shown]] = [:]
    /// The extensions of the last configuration applied, sorted: what a new start compares
    /// its configuration with to tell an app installed while it was stopped. `nil` in a
    /// file written before it was kept, and before the first start.
    package var configured: [String]?

    package init() {}
}

/// An instance the user added.
package struct AddedInstance: Codable, Equatable {
    package var params: JSONValue
    package var place: String?

    package init(params: JSONValue, place: String?) {
        self.params = params
        self.place = place
    }
}

extension ExtensionStore {
    private var galleryPath: String { stateDirectory + "/gallery.json" }

    package func loadGallery() throws(UnreadableStoreFile) -> SavedGallery {
        try load(SavedGallery.self, from: galleryPath) ?? SavedGallery()
    }

    /// `gallery.json`, written beside the loop; its content is ``encode(_:)`` of a ``SavedGallery``.
    package func galleryRecord(clock: any CoordinatorClock, events: EventLog) -> DurableRecord {
        record(of: galleryPath, clock: clock, events: events)
    }
}
