import ExtensionCoordination
import HostProtocol

/// A widget, or one of its instances, as a host's `visible` names it.
struct ShownWidget: Hashable {
    var extensionID: String
    /// `nil` for the widget itself.
    var instance: String?
}

extension HostServer {
    /// A host's `visible`: what it shows now. Unknown extensions refuse the whole message.
    func show(_ request: HostToSupervisor.Visible, from host: ConnectedHost) {
        if let unknown = request.extensions.first(where: { extensions.records[$0.extensionID] == nil }) {
            return host.send(.error(.init(id: request.id, error: RequestRejection.unknown(unknown.extensionID).description)))
        }
        noteEnvironment(request.environment, of: request.extensions.map(\.extensionID))
        let widgets = request.extensions.map { ShownWidget(extensionID: $0.extensionID, instance: $0.instance) }
        for widget in widgets { host.shown[widget] = request.visible }
        visibilityChanged(of: widgets)
    }

    /// Tells the coordinator whether each of `widgets` is shown.
    ///
    /// The widget itself is hidden when some connected host reported on it and none shows
    /// it: hosts that never send `visible` (version 1) leave widgets shown, so that they are
    /// refreshed as before. An instance exists only for the hosts that use it, so it is
    /// shown while a connected host shows it, or pulled or subscribed to it and did not say
    /// it hides it: an instance no connected host uses is not refreshed by the schedule.
    func visibilityChanged(of widgets: some Sequence<ShownWidget>) {
        for widget in Set(widgets) {
            let shown: Bool
            if widget.instance == nil {
                let reports = connections.values.compactMap { $0.shown[widget] }
                shown = reports.isEmpty || reports.contains(true)
            } else {
                shown = connections.values.contains { $0.shown[widget] ?? $0.uses(widget) }
            }
            extensions.setShown(shown, widget.extensionID, instance: widget.instance)
        }
    }
}
