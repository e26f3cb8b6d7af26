import ExtensionCoordination
import HostProtocol
import WireProtocol

/// A host's `pull`, the request hosts send most: a cached answer is written before the
/// coordinator returns, with nothing made for later (no closure, no array of names).
extension HostServer {
    func pull(_ request: HostToSupervisor.Pull, from host: ConnectedHost) {
        let extensionID = request.extensionID
        guard mayUse(CollectionOfOne(extensionID), id: request.id, from: host) else { return }
        noteEnvironment(request.environment, of: CollectionOfOne(extensionID))
        guard let limits = placeLimits(request.place, for: host, id: request.id),
            admitsInstance(request.instance, of: extensionID, for: host, id: request.id)
        else { return }
        // The answers keep only what they write, not the whole request.
        let id = request.id, waits = request.wait == true
        do {
            try extensions.pull(
                extensionID, mode: request.mode, maxSize: request.maxSize, placeLimit: limits[request.mode],
                instance: request.instance, params: request.params,
                answeredAtOnce: { outcome in answer(host, line: outcome.answerLine(id: id, extensionID: extensionID)) },
                // Called only when the answer must wait: nothing weak is made before.
                later: {
                    // Unless it waits, an expired snapshot is answered at once; the update's
                    // outcome follows as a push (a subscriber gets a newData push anyway, once).
                    let revalidated: ((PullOutcome) -> Void)? =
                        waits
                        ? nil
                        : { [weak self, weak host] outcome in
                            guard let host, outcome.result != .newData || !host.subscriptions.contains(extensionID) else { return }
                            self?.answer(host, line: outcome.answerLine(id: nil, extensionID: extensionID), atOnce: true)
                        }
                    return PullWaiters(revalidated: revalidated) { [weak self, weak host] outcome in
                        self?.answer(host, line: outcome.answerLine(id: id, extensionID: extensionID), atOnce: true)
                    }
                })
            // Once accepted: the extension exists and the instance is within its limit.
            host.pulled(extensionID, SlotKey(mode: request.mode, instance: request.instance))
            // A new instance's slot starts shown: what connected hosts said of it decides.
            if let instance = request.instance {
                visibilityChanged(of: [ShownWidget(extensionID: extensionID, instance: instance)])
            }
        } catch {
            host.send(.error(.init(id: request.id, error: error.description)))
        }
    }
}
