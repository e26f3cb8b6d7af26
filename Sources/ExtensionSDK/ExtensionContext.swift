/// What an extension can ask of the supervisor while it runs, as `NSExtensionContext`.
///
/// Calls are synchronous: they send a request and wait for its answer, keeping any other
/// message that arrives meanwhile for the runtime loop. Use the context only on the thread
/// that runs ``ExtensionRuntime``.
public final class ExtensionContext {
    /// The extension's id, from `EXTENSIOND_EXTENSION_ID` (empty when not set).
    public let extensionID: String
    /// The container directory of each app group the extension may use, by group id.
    public let groupContainers: [String: String]
    /// During a widget's update: the instance a host pulled (for example a city), or `nil`
    /// for the widget itself.
    public internal(set) var instance: String?
    /// During a widget's update: that instance's settings, as its host gave them.
    public internal(set) var params: JSONValue?
    /// During a widget's update: what the host renders for (color scheme, locale, scale),
    /// as far as it said.
    public internal(set) var environment = RenderEnvironment()
    /// During a widget's update: a host just switched the widget to this update's mode
    /// (WidgetKit's `widgetActiveDisplayModeDidChange`); the reason is then `.pull`.
    public internal(set) var displayModeChanged = false
    /// The largest display mode the widget offers now (WidgetKit's
    /// `widgetLargestAvailableDisplayMode`): `.compact` tells hosts to offer no "Show more".
    /// Sent with every result while set; hosts hear of it in `list`.
    public var largestAvailableMode: DisplayMode?

    let connection: SupervisorConnection

    /// The request's instance, params and environment, for the time it is handled.
    func enter(instance: String?, params: JSONValue?, environment: RenderEnvironment) {
        self.instance = instance
        self.params = params
        self.environment = environment
    }

    func leave() {
        enter(instance: nil, params: nil, environment: RenderEnvironment())
        displayModeChanged = false
    }

    init(connection: SupervisorConnection, extensionID: String, groupContainers: [String: String]) {
        self.connection = connection
        self.extensionID = extensionID
        self.groupContainers = groupContainers
    }

    /// Asks the supervisor to open the app that handles `url`'s scheme. Returns whether an
    /// app was found and opened (`false` also when the supervisor cannot be reached).
    public func openURL(_ url: String) -> Bool {
        let reply = try? connection.request(
            { .openURL(.init(id: $0, url: url)) },
            reply: { message, id -> Bool? in
                guard case .openURLResult(let result) = message, result.id == id else { return nil }
                return result.success
            })
        return reply ?? false
    }

    /// Tells hosts whether the extension has anything to show; they hide it when `false`.
    public func setHasContent(_ hasContent: Bool) {
        try? connection.send(.setHasContent(.init(value: hasContent)))
    }

    /// The shared key-value store of the app group `group`.
    public func defaults(group: String) -> Defaults {
        Defaults(group: group, context: self)
    }
}
