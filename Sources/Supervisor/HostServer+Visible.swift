import WireProtocol

extension HostServer {
    /// A host's `visible`: what it shows now. Unknown extensions refuse the whole message.
    func show(_ request: HostToSupervisor.Visible, from host: HostConnection) {
        let ids = request.extensions.map(\.extensionID)
        if let unknown = ids.first(where: { extensions.records[$0] == nil }) {
            return host.send(.error(.init(id: request.id, error: RequestRejection.unknown(unknown).description)))
        }
        for id in ids { host.shown[id] = request.visible }
        visibilityChanged(of: ids)
    }

    /// Tells the coordinator whether each of `ids` is shown: hidden when some connected host
    /// reported on it and none shows it. Hosts that never send `visible` (version 1) leave
    /// widgets shown, so that they are refreshed as before.
    func visibilityChanged(of ids: [String]) {
        for id in Set(ids) {
            let reports = connections.values.compactMap { $0.shown[id] }
            extensions.setShown(reports.isEmpty || reports.contains(true), id)
        }
    }
}
