import DaemonSupport
import ExtensionCoordination
import HostProtocol
import WireProtocol

/// What the user chose in a gallery, kept in `<state_dir>/gallery.json` across restarts:
/// the instances added to each widget (their params and place) and the order of the widgets
/// of each managing host's place, and the extensions of the last configuration applied.
/// Every change is in effect at once and written beside the loop (``whenSaved(then:)``).
final class Gallery {
    private let file: DurableRecord
    private(set) var saved: SavedGallery

    /// The extensions of the last configuration applied, by this run or an earlier one;
    /// `nil` before the first start that kept them.
    var configured: Set<String>? { saved.configured.map(Set.init) }

    /// Instances a widget may have added (apart from the ones hosts use without adding them).
    static let maxAddedInstances = 64

    init(store: ExtensionStore, clock: any CoordinatorClock, events: EventLog) {
        file = store.galleryRecord(clock: clock, events: events)
        do {
            saved = try store.loadGallery()
        } catch {
            events.record(.error, nil, "\(error); starting with no added instances and no arrangement")
            saved = SavedGallery()
        }
    }

    /// The instances added to `id`, by name.
    func instances(of id: String) -> [String: AddedInstance] { saved.instances[id] ?? [:] }

    func isAdded(_ id: String, _ instance: String) -> Bool { saved.instances[id]?[instance] != nil }

    /// The order of the widgets of `place` on `host`, if the user gave one.
    func arrangement(host: String, place: String?) -> [HostToSupervisor.Shown]? {
        saved.arrangements[Self.key(host, place)]
    }

    func add(_ id: String, _ instance: String, _ added: AddedInstance) throws(RequestRejection) {
        let existing = saved.instances[id] ?? [:]
        guard existing[instance] != nil || existing.count < Self.maxAddedInstances else {
            throw .tooManyInstances(id, Self.maxAddedInstances)
        }
        change { $0.instances[id, default: [:]][instance] = added }
    }

    /// Forgets an added instance and its place in every arrangement.
    func remove(_ id: String, _ instance: String) {
        change { saved in
            saved.instances[id]?[instance] = nil
            if saved.instances[id]?.isEmpty == true { saved.instances[id] = nil }
            for key in saved.arrangements.keys {
                saved.arrangements[key]?.removeAll { $0.extensionID == id && $0.instance == instance }
            }
        }
    }

    func arrange(host: String, place: String?, _ widgets: [HostToSupervisor.Shown]) {
        change { $0.arrangements[Self.key(host, place)] = widgets }
    }

    /// Keeps `configured` as the configuration applied, and forgets everything about
    /// extensions that are not configured any more (an app removed).
    func keepOnly(_ configured: Set<String>) {
        let stale = Set(saved.instances.keys).subtracting(configured)
        let arranged = saved.arrangements.values.contains { $0.contains { !configured.contains($0.extensionID) } }
        let sorted = configured.sorted()
        guard !stale.isEmpty || arranged || saved.configured != sorted else { return }
        change { saved in
            saved.configured = sorted
            for id in stale { saved.instances[id] = nil }
            for key in saved.arrangements.keys { saved.arrangements[key]?.removeAll { !configured.contains($0.extensionID) } }
        }
    }

    /// Calls `completion` on the loop once `gallery.json` holds every change made, or with
    /// why not (the changes kept in memory, written again every second).
    func whenSaved(then completion: @escaping DurableRecord.Completion) {
        file.whenWritten(then: completion)
    }

    /// Applies `edit` at once and writes the result beside the loop.
    private func change(_ edit: (inout SavedGallery) -> Void) {
        edit(&saved)
        file.save(ExtensionStore.encode(saved))
    }

    private static func key(_ host: String, _ place: String?) -> String { host + "/" + (place ?? "") }
}
