import DaemonSupport
import ExtensionCoordination
import ExtensiondConfig
import ExtensiondPolicy
import HostProtocol
import WireProtocol

/// The gallery on `host.sock` (docs/PROTOCOL.md §3, "The gallery"): what `list` tells a host
/// (only what it may use, translated for it, with the user's arrangement), the requests of
/// hosts with `manage = true`, places, and the bounds on the instances hosts make up.
extension HostServer {
    // MARK: list

    func answerList(_ request: HostToSupervisor.List, from host: ConnectedHost) {
        guard placeLimits(request.place, for: host, id: request.id) != nil else { return }
        host.listed = ListedState(locale: request.locale, place: request.place)
        var answer = listing(for: host, id: nil)
        host.listed?.lastHash = answer.hashValue
        answer.id = request.id
        host.send(.extensions(answer))
    }

    /// The `extensions` answer for `host`: the extensions it may pull or manage.
    func listing(for host: ConnectedHost, id: RequestID?) -> SupervisorToHost.Extensions {
        let locale = host.listed?.locale
        let infos = extensions.records.values.sorted { $0.id < $1.id }
            .filter { host.peer.refusal(of: $0.id, ownedBy: $0.spec.app, hosts: hosts) == nil }
            .map { info($0, locale: locale) }
        let arrangement = manager(host).flatMap { gallery.arrangement(host: $0, place: host.listed?.place) }
        return .init(id: id, extensions: infos, arrangement: arrangement)
    }

    private func info(_ record: ExtensionRecord, locale: String?) -> SupervisorToHost.ExtensionInfo {
        let spec = record.spec, isWidget = spec.point == .widget
        let added = gallery.instances(of: record.id).sorted { $0.key < $1.key }.map {
            SupervisorToHost.InstanceInfo(instance: $0.key, params: $0.value.params, place: $0.value.place)
        }
        return .init(
            id: record.id, app: spec.app, point: spec.point.rawValue, enabled: record.enabled, hasContent: record.hasContent,
            modes: isWidget ? record.modes : nil, displayName: spec.gallery.displayName?.text(for: locale),
            description: spec.gallery.description?.text(for: locale),
            preview: spec.gallery.preview.flatMap { try? JSONCoding.decode(JSONValue.self, from: Array($0.utf8)) },
            parameters: spec.gallery.parameters.isEmpty ? nil : spec.gallery.parameters.map { $0.info(locale: locale) },
            instances: added.isEmpty ? nil : added, largestMode: record.largestMode, cardTemplate: record.cardTemplate)
    }

    /// Every host that listed gets its list again, when it changed for it.
    package func listChanged() {
        for host in connections.values where host.listed != nil {
            let listing = listing(for: host, id: nil)
            guard listing.hashValue != host.listed?.lastHash else { continue }
            host.listed?.lastHash = listing.hashValue
            host.send(.extensions(listing))
        }
    }

    // MARK: Places

    /// The maximum sizes of `place`; `nil` once the host was told it is unknown.
    func placeLimits(_ place: String?, for host: ConnectedHost, id: RequestID?) -> [DisplayMode: Size]? {
        if let limits = places(place) { return limits }
        let declared = places.keys.sorted().joined(separator: ", ")
        host.send(
            .error(
                .init(
                    id: id,
                    error: RequestRejection.unknownPlace(place ?? "").description
                        + (declared.isEmpty ? "; no place is declared" : "; places: \(declared)"))))
        return nil
    }

    /// The maximum sizes of a known place (`[:]` for none), or `nil` for an unknown one.
    private func places(_ place: String?) -> [DisplayMode: Size]? {
        guard let place else { return [:] }
        return places[place].map { spec in
            Dictionary(
                uniqueKeysWithValues: spec.maxSizes.compactMap { mode, size in
                    DisplayMode(rawValue: mode.rawValue).map { ($0, Size(width: size.width, height: size.height)) }
                })
        }
    }

    // MARK: Configuration

    /// A new configuration (at start and at every reload, after the extensions'): widgets
    /// not in the last configuration applied, by this run or the one before a restart (an
    /// app's drop-in added while running or stopped), start disabled on a device with a
    /// managing host, until the user adds them, even if an earlier install of the same id was
    /// enabled; at the very first start every widget keeps its `enabled`. What users added to removed extensions is forgotten, the rest
    /// restored; hosts that listed get their new list.
    package func configure(_ configuration: Configuration) {
        hosts = Dictionary(configuration.hosts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        externalHosts = configuration.supervisor.externalHosts
        places = Dictionary(configuration.places.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let ids = Set(configuration.extensions.map(\.id))
        if let known = gallery.configured, configuration.hosts.contains(where: \.manage) {
            let installed = configuration.extensions.filter {
                $0.point == .widget && !known.contains($0.id)
            }
            reportFailure { () throws(RequestRejection) in try extensions.setEnabled(false, for: installed.map(\.id)) }
        }
        gallery.keepOnly(ids)
        for (id, added) in gallery.saved.instances where extensions.records[id]?.spec.point == .widget {
            for (name, instance) in added where !extensions.hasInstance(id, name) {
                reportFailure { () throws(RequestRejection) in
                    try extensions.addInstance(id, name, params: instance.params, placeLimits: places(instance.place) ?? [:])
                }
            }
            visibilityChanged(of: added.keys.map { ShownWidget(extensionID: id, instance: $0) })
        }
        listChanged()
    }

    private func reportFailure(_ body: () throws(RequestRejection) -> Void) {
        do throws(RequestRejection) { try body() } catch { events.record(.error, nil, "gallery: \(error)") }
    }

    // MARK: Made-up instances

    /// Whether `host` may use instance `name` of `id` (an `error` told it why not): an added
    /// instance always; a new one while its connection and its user are within their share
    /// (``InstanceShare``).
    func admitsInstance(_ name: String?, of id: String, for host: ConnectedHost, id requestID: RequestID?) -> Bool {
        guard let name, !gallery.isAdded(id, name), !host.instances(of: id).contains(name) else { return true }
        let own = host.instances(of: id).filter { !gallery.isAdded(id, $0) }.count
        let sameUser = connections.values.filter { $0.uid == host.uid }.flatMap { $0.instances(of: id) }
        let user = Set(sameUser).filter { !gallery.isAdded(id, $0) }.count
        switch InstanceShare.standard.refusal(own: own, user: user) {
        case nil:
            return true
        case .connection(let count):
            host.send(.error(.init(id: requestID, error: "this connection uses \(count) instances of \"\(id)\" already, the most one connection may")))
        case .user(let count):
            let uid = host.uid.map(String.init) ?? "?"
            host.send(.error(.init(id: requestID, error: "the connections of uid \(uid) use \(count) instances of \"\(id)\" already, the most one user may")))
        }
        return false
    }

    /// The instances `host` used that no connected host uses now and no user added are freed.
    func freeUnusedInstances(of host: ConnectedHost) {
        for widget in host.shownOrUsed {
            guard let name = widget.instance, !gallery.isAdded(widget.extensionID, name),
                !connections.values.contains(where: { $0.uses(widget) })
            else { continue }
            extensions.removeInstance(widget.extensionID, name, because: "no connected host uses instance \"\(name)\" any more")
        }
    }

    // MARK: Managing hosts

    func enable(_ request: HostToSupervisor.Enable, from host: ConnectedHost) {
        manage(request.id, request.extensionID, "enable", from: host, answer: SupervisorToHost.enableResult) { _ throws(RequestRejection) in
            try extensions.setEnabled(request.enabled, for: [request.extensionID])
        }
    }

    func addInstance(_ request: HostToSupervisor.AddInstance, from host: ConnectedHost) {
        manage(request.id, request.extensionID, "addInstance", from: host, answer: SupervisorToHost.addInstanceResult) { _ throws(RequestRejection) in
            guard let limits = places(request.place) else { throw .unknownPlace(request.place ?? "") }
            let existed = extensions.hasInstance(request.extensionID, request.instance)
            try extensions.addInstance(request.extensionID, request.instance, params: request.params, placeLimits: limits)
            do throws(RequestRejection) {
                try gallery.add(request.extensionID, request.instance, AddedInstance(params: request.params, place: request.place))
            } catch {
                if !existed {
                    extensions.removeInstance(request.extensionID, request.instance, because: "instance \"\(request.instance)\" could not be added")
                }
                throw error
            }
            // The user added it: it runs (iOS's behaviour with `enabled = false` in [defaults]).
            if extensions.records[request.extensionID]?.enabled == false { try extensions.setEnabled(true, for: [request.extensionID]) }
            visibilityChanged(of: [ShownWidget(extensionID: request.extensionID, instance: request.instance)])
        }
    }

    func removeInstance(_ request: HostToSupervisor.RemoveInstance, from host: ConnectedHost) {
        manage(request.id, request.extensionID, "removeInstance", from: host, answer: SupervisorToHost.removeInstanceResult) { _ throws(RequestRejection) in
            guard gallery.isAdded(request.extensionID, request.instance) else { throw .notAdded(request.extensionID, request.instance) }
            gallery.remove(request.extensionID, request.instance)
            extensions.removeInstance(request.extensionID, request.instance, because: "instance \"\(request.instance)\" was removed")
        }
    }

    func arrange(_ request: HostToSupervisor.Arrange, from host: ConnectedHost) {
        let ids = request.widgets.map(\.extensionID)
        manage(request.id, ids.first, "arrange", from: host, others: ids.dropFirst(), answer: SupervisorToHost.arrangeResult) {
            manager throws(RequestRejection) in
            guard places(request.place) != nil else { throw .unknownPlace(request.place ?? "") }
            gallery.arrange(host: manager, place: request.place, request.widgets)
        }
    }

    /// Checks that `host` manages and may use `id` (and `others`), runs `change` with the
    /// managing host's id (in effect at once), answers with `answer` once `gallery.json`
    /// and `enabled.json` hold it, and tells the hosts that listed.
    private func manage(
        _ requestID: RequestID, _ id: String?, _ type: String, from host: ConnectedHost, others: some Sequence<String> = [],
        answer: @escaping (SupervisorToHost.ManageResult) -> SupervisorToHost,
        _ change: (String) throws(RequestRejection) -> Void
    ) {
        let refusal: String?
        if let manager = manager(host) {
            refusal =
                ([id].compactMap { $0 } + others).lazy.compactMap { extensionID -> String? in
                    guard let record = self.extensions.records[extensionID] else { return RequestRejection.unknown(extensionID).description }
                    return host.peer.refusal(of: extensionID, ownedBy: record.spec.app, hosts: self.hosts)
                }.first
                ?? {
                    do throws(RequestRejection) {
                        try change(manager)
                        return nil
                    } catch {
                        return error.description
                    }
                }()
        } else {
            refusal = "\(type) is for hosts with manage = true in their [hosts.ID] table (a gallery); \(host.peer) is not one"
        }
        guard refusal == nil else { return host.send(answer(.init(id: requestID, success: false, error: refusal))) }
        whenManagedSaved { [weak self, weak host] failure in
            // Done, not on disk yet: `success` with the reason in `error` (docs/PROTOCOL.md §3).
            host?.send(answer(.init(id: requestID, success: true, error: failure.map(DurableRecord.notOnDisk))))
            self?.listChanged()
        }
    }

    /// Calls `completion` once `gallery.json` and `enabled.json` hold every change made, or
    /// with the first refusal of the disk.
    private func whenManagedSaved(then completion: @escaping DurableRecord.Completion) {
        gallery.whenSaved { [weak self] galleryFailure in
            self?.extensions.whenEnabledSaved { completion(galleryFailure ?? $0) }
        }
    }

    /// The id of a supervised host with `manage = true` on the other end, else `nil`.
    private func manager(_ host: ConnectedHost) -> String? {
        guard case .host(let id) = host.peer, hosts[id]?.manage == true else { return nil }
        return id
    }

}

/// What a host asked `list` for, and what it was told last (its hash: a list with previews
/// may be large, and every connection may have listed).
struct ListedState {
    var locale: String?
    var place: String?
    var lastHash: Int?
}

extension WidgetParameter {
    /// As `list` tells it, in `locale`.
    func info(locale: String?) -> SupervisorToHost.ParameterInfo {
        var info = SupervisorToHost.ParameterInfo(
            name: name, type: kind.name, displayName: displayName?.text(for: locale),
            defaultValue: defaultValue.json)
        switch kind {
        case .text(let maxLength): info.maxLength = maxLength
        case .choice(let choices): info.choices = choices
        case .number(let range, let step): (info.min, info.max, info.step) = (range.lowerBound, range.upperBound, step)
        case .toggle: break
        }
        return info
    }
}

extension WidgetParameter.Value {
    var json: JSONValue {
        switch self {
        case .text(let text): .string(text)
        case .number(let number): .number(number)
        case .toggle(let on): .bool(on)
        }
    }
}
