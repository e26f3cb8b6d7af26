/// The host socket: hosts and apps connect, pull, see pushes, open URLs.
///
/// This module owns `host.sock` and its connections. It asks the extension coordinator for
/// everything about extensions and must not reach processes or cgroups.
import DaemonSupport
import EventLoop
import ExtensionCoordination
import ExtensiondConfig
import ExtensiondPolicy
import Glibc
import HostProtocol
import Sockets

/// Serves `host.sock`: hosts list extensions, pull snapshots, subscribe to pushes and
/// run actions; a gallery manages them (`+Gallery`). A malformed message gets an `error`
/// and ends that connection only; one of an unknown type gets an `error` and is skipped.
///
/// A host that reads slowly costs the daemon a bounded amount (``HostLimits``):
/// past ``HostLimits/coalesceAfter`` queued bytes its pushes wait, the latest per
/// extension replacing older ones; past ``HostLimits/perHost`` in all, or when all
/// hosts together hold more than ``HostLimits/total``, the host furthest behind is
/// disconnected with an `error` and an event.
package final class HostServer {
    private let loop: EventLoop
    let extensions: ExtensionCoordinator
    let events: EventLog
    private var listener: Listener?
    private(set) var connections: [Int32: ConnectedHost] = [:]
    /// The connected hosts that may have bytes waiting: the only ones ``enforceLimits()`` reads.
    private let waiting = WaitingHosts()
    /// Host connections accepted, and those dropped by reason (`behind`: did not read in
    /// time, `limit`: one too many, `refused`: not allowed to be a host), for `/metrics`.
    package var connectedCount: Int { connections.count }
    package private(set) var accepted = 0
    package private(set) var dropped = ["behind": 0, "limit": 0, "refused": 0]
    /// Set while hosts are refused for being too many (one event per episode).
    private var refusing = false
    /// Who a peer pid is: a supervised host or app (by its cgroup), else external.
    private let identify: (pid_t) -> HostPeer
    /// The configured hosts (their `extensions` limits) and whether external hosts are served.
    package var hosts: [String: HostSpec] = [:]
    package var externalHosts = true
    /// `[places]` by name: the maximum size of each mode where hosts show widgets.
    var places: [String: PlaceSpec] = [:]
    /// What users added and arranged (persisted).
    private(set) lazy var gallery = Gallery(store: extensions.store, clock: loop, events: events)
    /// Opens a URL (`url`, `app`, `source`) in `app` only (`Daemon.open`).
    let openInApp: (_ url: String, _ app: String, _ source: String) throws(OpenURLError) -> Void
    /// URLs for apps that are starting and not connected yet, in order.
    private var pendingURLs: [String: [SupervisorToHost]] = [:]
    /// `<state_dir>/data`, where widgets' assets are read from (docs/PROTOCOL.md §6).
    package var dataRoot = "/nonexistent"

    /// Binds `path` with mode 0666: apps run under uids of their own, and every peer is told
    /// apart by its cgroup instead.
    /// `inherited`: the socket systemd passed for `path` (socket activation).
    package init(
        loop: EventLoop, path: String, inherited: Int32? = nil, extensions: ExtensionCoordinator, events: EventLog,
        openInApp: @escaping (_ url: String, _ app: String, _ source: String) throws(OpenURLError) -> Void,
        identify: @escaping (pid_t) -> HostPeer
    ) throws(SystemError) {
        self.loop = loop
        self.openInApp = openInApp
        self.extensions = extensions
        self.events = events
        self.identify = identify
        listener = try Listener(loop: loop, path: path, mode: 0o666, inherited: inherited) { [unowned self] fd in self.accept(fd) }
    }

    /// Takes what the coordinator tells hosts (pushes, terminations, `hasContent`, gallery
    /// changes): the daemon and the in-process test world wire hosts the same way.
    package func followCoordinator() {
        extensions.onPush = { [weak self] _, snapshot in self?.push(snapshot) }
        extensions.onTerminated = { [weak self] name, reason in self?.extensionTerminated(name, reason: reason) }
        extensions.onHasContentChanged = { [weak self] id, value in self?.hasContentChanged(id, to: value) }
        extensions.onGalleryChanged = { [weak self] in self?.listChanged() }
    }

    package func close() {
        listener?.close()
        listener = nil
        for host in connections.values { host.connection?.close() }
        connections.removeAll()
    }

    /// Sends `snapshot` to every host subscribed to its extension that shows its mode and
    /// instance (see ``ConnectedHost/wants(_:firstMode:)``); a host that is behind gets it
    /// later, in place of any older one of the same extension, mode and instance.
    package func push(_ snapshot: SupervisorToHost.Snapshot) {
        loop.assertInEventLoop()
        let firstMode = extensions.records[snapshot.extensionID]?.firstMode
        let key = SlotKey(mode: snapshot.mode ?? .compact, instance: snapshot.instance)
        var line: [UInt8]?  // encoded once, and only when some host wants it
        for host in connections.values where host.subscriptions.contains(snapshot.extensionID) && host.wants(snapshot, firstMode: firstMode) {
            let encoded = line ?? SupervisorToHost.snapshot(snapshot).encodedLine()
            line = encoded
            host.push(encoded, of: snapshot.extensionID, key)
        }
        enforceLimits()
    }

    /// Tells the hosts that `app` opened `url`, and the app itself unless it was `launched`
    /// for it (the URL is then its last argument): once it is connected, queued in order
    /// until then (at most ``maxPendingURLs``). No other app hears of it.
    package func openURL(_ url: String, app: String, launched: Bool) {
        let message = SupervisorToHost.openURL(.init(url: url, app: app))
        let line = message.encodedLine()
        var appConnected = false
        for host in connections.values {
            switch host.peer {
            case .app(let id) where id == app:
                host.send(line: line)
                appConnected = true
            case .app: continue
            default: host.send(line: line)
            }
        }
        if !appConnected && !launched && pendingURLs[app, default: []].count < Self.maxPendingURLs {
            pendingURLs[app, default: []].append(message)
        }
    }

    /// URLs kept for one app that has not connected yet.
    static let maxPendingURLs = 64

    /// An app that is not running any more gets no queued URL at its next start (which
    /// carries its own URL as an argument).
    package func appStopped(_ app: String) {
        pendingURLs[app] = nil
    }

    /// `hasContentChanged` to the hosts that listed the extensions or subscribed to `id`.
    package func hasContentChanged(_ id: String, to value: Bool) {
        let line = SupervisorToHost.hasContentChanged(.init(extensionID: id, hasContent: value)).encodedLine()
        for host in connections.values where host.listed != nil || host.subscriptions.contains(id) {
            host.send(line: line)
        }
    }

    /// `extensionTerminated` to the hosts that pulled, subscribed to or performed it.
    package func extensionTerminated(_ id: String, reason: StopReason) {
        let line = SupervisorToHost.extensionTerminated(.init(extensionID: id, reason: TerminationReason(rawValue: reason.rawValue))).encodedLine()
        for host in connections.values where host.used.contains(id) { host.send(line: line) }
    }

    /// Disconnects every host past its own limit, then the furthest behind while all
    /// together are past the total.
    private func enforceLimits() {
        guard waiting.mayExceed(perHost: HostLimits.perHost, total: HostLimits.total) else { return }
        waiting.dropDrained()
        var total = 0
        for host in waiting.hosts {
            let queued = host.queuedByteCount
            if queued > HostLimits.perHost {
                disconnect(host, "more than \(HostLimits.perHost) bytes waiting for it")
            } else {
                total += queued
            }
        }
        // Closed ones leave `connections` at once; the others in the list hold all the bytes.
        while total > HostLimits.total,
            let furthest = waiting.hosts.filter({ $0.connection?.isOpen == true }).max(by: { $0.queuedByteCount < $1.queuedByteCount })
        {
            total -= furthest.queuedByteCount
            if furthest.isReading {
                disconnect(furthest, "the hosts together have more than \(HostLimits.total) bytes waiting, this one the most")
            } else {
                furthest.connection?.close()
            }
        }
        let left = waiting.hosts.lazy.filter { $0.connection?.isOpen == true }.map(\.queuedByteCount)
        waiting.checked(most: left.max() ?? 0, total: left.reduce(0, +))
    }

    /// Ends a host that does not keep up: what waits for it is dropped, it is told why.
    private func disconnect(_ host: ConnectedHost, _ why: String) {
        guard let connection = host.connection, host.isReading else { return }
        host.dropHeldPushes()
        host.isReading = false
        dropped["behind", default: 0] += 1
        events.record(.error, nil, reason: "host-behind", "host connection \(connection.fd) disconnected: \(why)")
        connection.abandon(sending: SupervisorToHost.error(.init(id: nil, error: "disconnected: \(why) (read faster)")).encodedLine())
        // The farewell goes out if the host reads in time (or until the total needs its bytes).
        host.farewellTimer = loop.addTimer(after: HostLimits.farewellTimeout) { [weak host] in host?.connection?.close() }
    }

    /// Why `peer` may not connect at all, or `nil`.
    private static func refusal(of peer: HostPeer, externalHosts: Bool) -> String? {
        switch peer {
        case .extensionProcess(let id):
            "host.sock: extension \(id) may not act as a host; extensions talk to the supervisor on their fd 3 only"
        case .external(let pid) where !externalHosts:
            "host.sock: pid \(pid) is neither a supervised host nor an app, and supervisor.external_hosts is false"
        default:
            nil
        }
    }

    private func accept(_ fd: Int32) {
        let limit = HostLimits.connections()
        guard connections.count < limit else { return refuse(fd, limit: limit) }
        refusing = false
        let peer = HostPeer.pid(of: fd).map(identify) ?? .external(0)
        if let refusal = Self.refusal(of: peer, externalHosts: externalHosts) {
            dropped["refused", default: 0] += 1
            _ = try? UnixSocket.writeAll(fd, SupervisorToHost.error(.init(id: nil, error: refusal)).encodedLine())
            Glibc.close(fd)
            return
        }
        let host = ConnectedHost(peer: peer, uid: HostPeer.uid(of: fd), waiting: waiting)
        do {
            host.connection = try Connection(
                // A backstop: ``enforceLimits()`` disconnects with an error long before.
                loop: loop, fd: fd, maxQueuedBytes: 2 * HostLimits.perHost,
                onData: { [unowned self, unowned host] _, bytes in self.receive(bytes, from: host) },
                onClose: { [unowned self] connection in
                    // What it showed is shown no more; instances no one uses are freed.
                    if let host = self.connections.removeValue(forKey: connection.fd) {
                        self.waiting.remove(host)
                        self.visibilityChanged(of: host.shownOrUsed)
                        self.freeUnusedInstances(of: host)
                    }
                }
            )
            host.connection?.onDrained = { [unowned host] in host.sendHeldPushes() }
            connections[fd] = host
            accepted += 1
            if case .app(let id) = peer, let queued = pendingURLs.removeValue(forKey: id) {
                for message in queued { host.send(message) }
            }
        } catch {
            Glibc.close(fd)
        }
    }

    /// One host too many: told so, and closed.
    private func refuse(_ fd: Int32, limit: Int) {
        let why = "too many host connections (\(limit), half the daemon's open-file limit less a reserve)"
        dropped["limit", default: 0] += 1
        if !refusing {
            refusing = true
            events.record(.error, nil, reason: "host-limit", "refusing hosts: \(why)")
        }
        let line = SupervisorToHost.error(.init(id: nil, error: why)).encodedLine()
        _ = line.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        Glibc.close(fd)
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, from host: ConnectedHost) {
        guard host.isReading else { return }
        do throws(ProtocolError) {
            try host.framer.append(bytes)
            while host.connection?.isOpen == true, let line = try host.framer.nextLine() {
                do throws(ProtocolError) {
                    handle(try HostToSupervisor.decode(line: line), from: host)
                } catch .unknownType(let type) {
                    // A host written for a later protocol: told, and served on.
                    let id = HostToSupervisor.requestID(ofUnknown: line)
                    host.send(.error(.init(id: id, error: ProtocolError.unknownType(type).description)))
                }
            }
        } catch {
            host.send(.error(.init(id: nil, error: error.description)))
            host.connection?.closeWhenFlushed()
        }
        enforceLimits()
    }

    /// An answer that comes later (a pull waiting for an update, an action): written at
    /// once, before the rest of the wake-up's work (the result's bookkeeping).
    func answerLater(_ host: ConnectedHost?, _ message: SupervisorToHost) {
        answer(host, line: message.encodedLine(), atOnce: true)
    }

    /// Whether `host` may use the extensions `requested` (it is told why not); noted as
    /// used when it may.
    func mayUse(_ requested: some Collection<String>, id: RequestID?, from host: ConnectedHost) -> Bool {
        for extensionID in requested {
            if let refusal = host.peer.refusal(of: extensionID, ownedBy: extensions.records[extensionID]?.spec.app, hosts: hosts) {
                host.send(.error(.init(id: id, error: refusal)))
                return false
            }
        }
        host.use(requested)
        return true
    }

    /// An answer already written (a pull's, reused from its slot's last line), and the
    /// limits checked after it: a host that pipelines pulls without reading is stopped
    /// within the lines of one read.
    func answer(_ host: ConnectedHost?, line: [UInt8], atOnce: Bool = false) {
        guard let host else { return }
        host.send(line: line, atOnce: atOnce)
        enforceLimits()
    }

    private func handle(_ message: HostToSupervisor, from host: ConnectedHost) {
        if let (id, requested) = message.requestedExtensions, !mayUse(requested, id: id, from: host) { return }

        switch message {
        case .list(let request): answerList(request, from: host)
        case .pull(let request): pull(request, from: host)
        case .subscribe(let request):
            if let unknown = request.extensions.first(where: { extensions.records[$0] == nil }) {
                return host.send(.error(.init(id: request.id, error: RequestRejection.unknown(unknown).description)))
            }
            noteEnvironment(request.environment, of: request.extensions)
            if let instance = request.instance {
                guard placeLimits(request.place, for: host, id: request.id) != nil,
                    request.extensions.allSatisfy({ admitsInstance(instance, of: $0, for: host, id: request.id) })
                else { return }
                do {
                    // All checked before any is subscribed.
                    for id in request.extensions { _ = try extensions.usableRecord(id, point: .widget) }
                    for id in Set(request.extensions) {
                        if let mode = try extensions.subscribe(id, instance: instance, params: request.params) {
                            host.pulled(id, SlotKey(mode: mode, instance: instance))
                            visibilityChanged(of: [ShownWidget(extensionID: id, instance: instance)])
                        }
                    }
                } catch {
                    return host.send(.error(.init(id: request.id, error: error.description)))
                }
            }
            host.subscriptions.formUnion(request.extensions)
        case .open(let request):
            host.send(.openResult(openLink(request)))
        case .perform(let request):
            do {
                try extensions.perform(request.extensionID, items: request.items) { [weak self, weak host] outcome in
                    switch outcome {
                    case .completed(let items): self?.answerLater(host, .completed(.init(id: request.id, items: items)))
                    case .failed(let reason): self?.answerLater(host, .error(.init(id: request.id, error: reason)))
                    }
                }
            } catch {
                host.send(.error(.init(id: request.id, error: error.description)))
            }
        case .defaults(let request): answerDefaults(request, from: host)
        case .reloadExtensions(let request): reload(request, from: host)
        case .setHasContent(let request): setHasContent(request, from: host)
        case .visible(let request):
            guard placeLimits(request.place, for: host, id: request.id) != nil else { return }
            show(request, from: host)
        case .execute(let request): execute(request, from: host)
        case .asset(let request): sendAsset(request, from: host)
        case .enable(let request): enable(request, from: host)
        case .addInstance(let request): addInstance(request, from: host)
        case .removeInstance(let request): removeInstance(request, from: host)
        case .arrange(let request): arrange(request, from: host)
        }
    }
}

extension HostToSupervisor {
    /// The request id and the extensions a request uses, for the peer's rights.
    fileprivate var requestedExtensions: (RequestID?, [String])? {
        switch self {
        case .list: nil
        case .pull: nil  // checked by `pull(_:from:)`, without an array
        case .subscribe(let request): (request.id, request.extensions)
        case .perform(let request): (request.id, [request.extensionID])
        case .open(let request): (request.id, [request.extensionID])
        case .visible(let request): (request.id, request.extensions.map(\.extensionID))
        case .execute(let request): (request.id, [request.extensionID])
        case .asset(let request): (request.id, [request.extensionID])
        case .defaults, .reloadExtensions, .setHasContent: nil  // the app's own requests (HostServer+Apps)
        case .enable, .addInstance, .removeInstance, .arrange: nil  // answered by a result (HostServer+Gallery)
        }
    }
}

extension PullOutcome {
    /// The line answering pull `id` (a push without it): the slot's last one with new
    /// per-answer fields when it can be.
    func answerLine(id: RequestID?, extensionID: String) -> [UInt8] {
        let snapshot = snapshot(id: id, extensionID: extensionID)
        return answerLines?.line(for: snapshot) ?? SupervisorToHost.snapshot(snapshot).encodedLine()
    }

    /// The `snapshot` message answering pull `id`.
    package func snapshot(id: RequestID?, extensionID: String) -> SupervisorToHost.Snapshot {
        SupervisorToHost.Snapshot(
            id: id, extensionID: extensionID, result: result, snapshot: state.snapshot?.payload,
            version: (state.snapshot?.version ?? 0) &+ versionOffset,
            ageMs: UInt64(max(0, (state.age ?? .zero).wholeMicroseconds / 1000)),
            stale: state.isStale, expired: expired, error: state.error, mode: mode, preferredSize: preferredSize, date: date, instance: instance)
    }
}
