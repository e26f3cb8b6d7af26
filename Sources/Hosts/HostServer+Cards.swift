import ExtensionCoordination
import HostProtocol
import WireProtocol

/// The host requests of cards (docs/PROTOCOL.md §6): `execute`, `asset`, and the
/// environment that `pull`, `subscribe` and `visible` carry.
extension HostServer {
    /// An `Action.Execute`: the widget's new card answers it as a `snapshot` with its id.
    func execute(_ request: HostToSupervisor.Execute, from host: ConnectedHost) {
        do throws(RequestRejection) {
            try extensions.execute(
                request.extensionID, verb: request.verb, data: request.data ?? .null, mode: request.mode,
                maxSize: request.maxSize, instance: request.instance,
                environment: request.environment
            ) { [weak self, weak host] outcome in
                self?.answerLater(host, .snapshot(outcome.snapshot(id: request.id, extensionID: request.extensionID)))
            }
            host.pulled(request.extensionID, SlotKey(mode: request.mode, instance: request.instance))
        } catch {
            host.send(.error(.init(id: request.id, error: error.description)))
        }
    }

    /// A file of the widget's `assets/`, read by the daemon (never by the host) within bounds.
    func sendAsset(_ request: HostToSupervisor.Asset, from host: ConnectedHost) {
        guard let record = extensions.records[request.extensionID], record.spec.point == .widget else {
            return host.send(.error(.init(id: request.id, error: RequestRejection.unknown(request.extensionID).description)))
        }
        switch WidgetAssets(dataRoot: dataRoot).read(request.name, of: record.id) {
        case .success(let asset):
            host.send(.assetResult(.init(id: request.id, contentType: asset.type, data: Base64.encode(asset.bytes))))
        case .failure(let failure):
            host.send(.error(.init(id: request.id, error: "extension \"\(record.id)\": \(failure)")))
        }
    }

    /// What a host said it renders for reaches the widgets' next updates; a change after the
    /// first (the user turned dark mode on) refreshes what they show now.
    func noteEnvironment(_ environment: RenderEnvironment, of ids: some Sequence<String>) {
        guard !environment.isEmpty else { return }
        // A repeated id changes nothing the second time: no set is made to skip it.
        for id in ids { extensions.environmentChanged(environment, of: id) }
    }
}
