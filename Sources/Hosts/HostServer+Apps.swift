import ExtensionCoordination
import HostProtocol

/// The containing app's side of `host.sock` (docs/PROTOCOL.md §3, "The containing app"):
/// an app uses the shared defaults of its own groups, reloads its own widgets within their
/// budget and says whether they have content. Only apps may; hosts are told so.
extension HostServer {
    func answerDefaults(_ request: HostToSupervisor.Defaults, from host: ConnectedHost) {
        guard let app = app(of: host, sending: "defaults", id: request.id) else { return }
        extensions.groupAccess.perform(request, forAppOf: app, by: .app(app)) { outcome in
            host.send(.defaultsResult(.init(id: request.id, outcome: outcome)))
        }
    }

    func reload(_ request: HostToSupervisor.ReloadExtensions, from host: ConnectedHost) {
        guard app(of: host, sending: "reloadExtensions", id: request.id) != nil else { return }
        if let refusal = refusal(of: request.extensions, to: host) {
            return host.send(.error(.init(id: request.id, error: refusal)))
        }
        do {
            let outcome = try extensions.reload(request.extensions)
            host.send(.reloadResult(.init(id: request.id, scheduled: outcome.scheduled, refused: outcome.refused)))
        } catch {
            host.send(.error(.init(id: request.id, error: error.description)))
        }
    }

    func setHasContent(_ request: HostToSupervisor.SetHasContent, from host: ConnectedHost) {
        guard app(of: host, sending: "setHasContent", id: request.id) != nil else { return }
        if let refusal = refusal(of: [request.extensionID], to: host) {
            return host.send(.error(.init(id: request.id, error: refusal)))
        }
        extensions.setHasContent(request.value, for: request.extensionID)
    }

    /// The app on the other end; `nil` once a peer that is not an app was told why.
    private func app(of host: ConnectedHost, sending type: String, id: RequestID?) -> String? {
        guard case .app(let app) = host.peer else {
            host.send(
                .error(
                    .init(
                        id: id,
                        error:
                            "\(type) is for containing apps, on their own groups and extensions; \(host.peer) is not an app")))
            return nil
        }
        return app
    }

    /// Why the app may not act on one of `ids`: unknown, or not its own.
    private func refusal(of ids: [String], to host: ConnectedHost) -> String? {
        for id in ids {
            guard let record = extensions.records[id] else { return RequestRejection.unknown(id).description }
            if let refusal = host.peer.refusal(of: id, ownedBy: record.spec.app, hosts: hosts) { return refusal }
        }
        return nil
    }
}
