import EventLoop
import ExtensionCoordination
import ExtensiondPolicy
import HostProtocol
import Sockets

/// One host's connection, subscriptions, and the pushes held back while it is behind.
final class ConnectedHost {
    var connection: Connection?
    var framer = LineFramer()
    var subscriptions: Set<String> = []
    /// False once disconnected for falling behind: its requests are no longer read.
    var isReading = true
    var farewellTimer: EventSource?
    /// The latest push of each extension not sent yet, and their size.
    private var heldPushes: [HeldPush: [UInt8]] = [:]
    /// The modes and instances it pulled of each extension: the pushes it gets.
    private var pulledSlots: [String: Set<SlotKey>] = [:]
    private var heldBytes = 0
    /// Extensions it pulled, subscribed to or performed: it hears when they end.
    private(set) var used: Set<String> = []
    /// The last extension ``use(_:)`` noted alone, and the last slot ``pulled(_:_:)`` noted
    /// (both sets only grow): a host that asks for one widget again and again costs a
    /// comparison per request, not two hashes.
    private var lastUsed: String?
    private var lastPulled: (extensionID: String, key: SlotKey)?
    /// Its last `list`, when it sent one: it hears when an extension's `hasContent`
    /// changes, and gets the list again when it changes.
    var listed: ListedState?
    /// What its `visible` messages said of each widget and instance: shown or not.
    var shown: [ShownWidget: Bool] = [:]
    let peer: HostPeer
    /// The peer's user: its share of a widget's instances is bounded too.
    let uid: UInt32?
    /// Where it is noted when written to; `isWaiting` while it is in that list.
    private let waiting: WaitingHosts
    var isWaiting = false

    init(peer: HostPeer, uid: UInt32?, waiting: WaitingHosts) {
        self.peer = peer
        self.uid = uid
        self.waiting = waiting
    }

    func send(_ message: SupervisorToHost) {
        send(line: message.encodedLine())
    }

    /// Every write to the host goes through here (or ``push(_:of:_:)``): the limits see it.
    /// `atOnce`: an answer it waits for, written before the rest of the wake-up's work
    /// (see ``Connection/send(_:atOnce:)``).
    func send(line: [UInt8], atOnce: Bool = false) {
        guard let connection else { return }
        connection.send(line, atOnce: atOnce)
        noteWaiting(line.count)
    }

    /// In the list of hosts with bytes waiting, unless closed (a send past the backstop closes).
    private func noteWaiting(_ byteCount: Int) {
        if connection?.isOpen == true { waiting.note(self, byteCount: byteCount) }
    }

    /// Bytes the daemon holds for this host: queued on the socket and held back.
    var queuedByteCount: Int { (connection?.queuedByteCount ?? 0) + heldBytes }

    /// A pull of `extensionID` (a configured one) in the mode and instance of `key`.
    func pulled(_ extensionID: String, _ key: SlotKey) {
        if let lastPulled, lastPulled.key == key, lastPulled.extensionID == extensionID { return }
        pulledSlots[extensionID, default: []].insert(key)
        lastPulled = (extensionID, key)
    }

    /// Notes the extensions a request names in ``used``.
    func use(_ extensionIDs: some Collection<String>) {
        let alone = extensionIDs.count == 1 ? extensionIDs.first : nil
        if let alone, alone == lastUsed { return }
        used.formUnion(extensionIDs)
        lastUsed = alone
    }

    /// The instances of `extensionID` it pulled or subscribed to.
    func instances(of extensionID: String) -> Set<String> { Set(pulledSlots[extensionID]?.compactMap(\.instance) ?? []) }

    /// Whether it pulled or subscribed to `widget` (an instance, or the widget itself).
    func uses(_ widget: ShownWidget) -> Bool {
        pulledSlots[widget.extensionID]?.contains { $0.instance == widget.instance } ?? false
    }

    /// The widgets and instances whose visibility may change when it leaves.
    var shownOrUsed: [ShownWidget] {
        let instances = pulledSlots.flatMap { id, keys in
            keys.compactMap { $0.instance.map { ShownWidget(extensionID: id, instance: $0) } }
        }
        return Array(shown.keys) + instances
    }

    /// Whether `snapshot` is one it shows: of a mode and instance it pulled, or, before its
    /// first pull of the extension, of the widget itself in its first mode (what a
    /// version-1 host, which knows no modes or instances, expects).
    func wants(_ snapshot: SupervisorToHost.Snapshot, firstMode: DisplayMode?) -> Bool {
        guard let pulled = pulledSlots[snapshot.extensionID] else {
            return snapshot.instance == nil && (snapshot.mode == nil || snapshot.mode == firstMode)
        }
        return pulled.contains(SlotKey(mode: snapshot.mode ?? .compact, instance: snapshot.instance))
    }

    func push(_ line: [UInt8], of extensionID: String, _ key: SlotKey) {
        guard let connection, isReading else { return }
        defer { noteWaiting(line.count) }
        if heldPushes.isEmpty && connection.queuedByteCount < HostLimits.coalesceAfter {
            // The outcome of an update it waits for: the bookkeeping after it can wait.
            return connection.send(line, atOnce: true)
        }
        heldBytes += line.count - (heldPushes.updateValue(line, forKey: HeldPush(extensionID: extensionID, slot: key))?.count ?? 0)
    }

    /// The host caught up: what was held back goes out.
    func sendHeldPushes() {
        let held = heldPushes.sorted { $0.key.order.lexicographicallyPrecedes($1.key.order) }
        dropHeldPushes()
        for (_, line) in held { send(line: line) }
    }

    func dropHeldPushes() {
        heldPushes.removeAll()
        heldBytes = 0
    }
}

/// Which snapshot a held push is: only the latest of each is kept.
private struct HeldPush: Hashable {
    var extensionID: String
    var slot: SlotKey

    /// Extensions in name order, then modes and instances.
    var order: [String] { [extensionID, slot.mode.rawValue, slot.instance ?? ""] }
}
