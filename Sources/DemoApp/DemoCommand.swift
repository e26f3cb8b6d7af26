import HostProtocol

/// What the demo app does for a URL of its scheme besides showing it, as a containing app
/// does for its widget: `demo://reset` sets the widget's shared counter back to 0 and
/// reloads the widget, `demo://hide` and `demo://show` say whether it has content.
enum DemoCommand: String, Equatable {
    case reset, hide, show

    /// The demo config's widget and the group it counts in.
    static let widget = "demo.widget"
    static let group = "group.demo"

    /// The command a URL names by its host part (`demo://reset?from=panel` is `reset`).
    init?(url: String) {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let host = url[colon...].dropFirst(3).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        self.init(rawValue: host.lowercased())
    }

    /// The requests that carry it out, numbered from `firstID` on.
    func requests(firstID: RequestID) -> [HostToSupervisor] {
        switch self {
        case .reset:
            [
                .defaults(.init(id: firstID, group: Self.group, op: .set, key: "counter", value: 0)),
                .reloadExtensions(.init(id: firstID.next, extensions: [Self.widget])),
            ]
        case .hide, .show:
            [.setHasContent(.init(id: firstID, extensionID: Self.widget, value: self == .show))]
        }
    }
}
