import HostProtocol

/// The gallery's requests (docs/PROTOCOL.md §3, "The gallery"), each waiting for its answer.
/// The managing ones (`enable`, `addInstance`, `removeInstance`, `arrange`) need a host with
/// `manage = true`; for any other the answer has `success: false` and says why.
extension HostConnection {
    /// The extensions this host may use, named and described in `locale` where a translation
    /// exists, with the user's arrangement of `place`.
    public func list(id: RequestID, locale: String? = nil, place: String? = nil) throws(HostConnectionError) -> SupervisorToHost.Extensions {
        let answer = try request(.list(.init(id: id, locale: locale, place: place)))
        guard case .extensions(let extensions) = answer else { throw .unexpectedAnswer(answer) }
        return extensions
    }

    /// Turns a widget on or off for the user.
    public func enable(_ extensionID: String, _ enabled: Bool, id: RequestID) throws(HostConnectionError) -> SupervisorToHost.ManageResult {
        try manage(.enable(.init(id: id, extensionID: extensionID, enabled: enabled)))
    }

    /// Adds instance `instance` of a widget with `params` (or gives an added one new params),
    /// shown in `place`; kept across restarts.
    public func addInstance(
        _ extensionID: String, instance: String, params: JSONValue, place: String? = nil,
        id: RequestID
    ) throws(HostConnectionError) -> SupervisorToHost.ManageResult {
        try manage(.addInstance(.init(id: id, extensionID: extensionID, instance: instance, params: params, place: place)))
    }

    /// Removes an added instance: its snapshots and schedule are forgotten.
    public func removeInstance(_ extensionID: String, instance: String, id: RequestID) throws(HostConnectionError) -> SupervisorToHost.ManageResult {
        try manage(.removeInstance(.init(id: id, extensionID: extensionID, instance: instance)))
    }

    /// Keeps the order of the widgets of `place` the user chose.
    public func arrange(_ widgets: [HostToSupervisor.Shown], place: String? = nil, id: RequestID) throws(HostConnectionError) -> SupervisorToHost.ManageResult {
        try manage(.arrange(.init(id: id, place: place, widgets: widgets)))
    }

    /// The result answering `message`; an `error` about it (a malformed or refused request)
    /// becomes an unsuccessful result.
    private func manage(_ message: HostToSupervisor) throws(HostConnectionError) -> SupervisorToHost.ManageResult {
        switch try request(message) {
        case .enableResult(let result), .addInstanceResult(let result), .removeInstanceResult(let result), .arrangeResult(let result):
            return result
        case .error(let error):
            return .init(id: error.id ?? RequestID(rawValue: 0), success: false, error: error.error)
        case let other:
            throw .unexpectedAnswer(other)
        }
    }
}
