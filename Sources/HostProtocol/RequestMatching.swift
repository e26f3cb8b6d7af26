/// Which answer belongs to which request on `host.sock`: a request's `id` comes back in its
/// answer, and answers may come in any order and between pushed notices.
extension HostToSupervisor {
    /// The `id` its answer will carry; `nil` when it has none (then only an `error` about it,
    /// without `id`, or nothing, comes back).
    public var requestID: RequestID? {
        switch self {
        case .list(let message): message.id
        case .pull(let message): message.id
        case .subscribe(let message): message.id
        case .perform(let message): message.id
        case .open(let message): message.id
        case .defaults(let message): message.id
        case .reloadExtensions(let message): message.id
        case .setHasContent(let message): message.id
        case .visible(let message): message.id
        case .execute(let message): message.id
        case .asset(let message): message.id
        case .enable(let message): message.id
        case .addInstance(let message): message.id
        case .removeInstance(let message): message.id
        case .arrange(let message): message.id
        }
    }
}

extension SupervisorToHost {
    /// The `id` of the request this message answers; `nil` for pushed notices.
    public var answerID: RequestID? {
        switch self {
        case .extensions(let message): message.id
        case .snapshot(let message): message.id
        case .completed(let message): message.id
        case .error(let message): message.id
        case .openResult(let message): message.id
        case .defaultsResult(let message): message.id
        case .reloadResult(let message): message.id
        case .assetResult(let message): message.id
        case .enableResult(let message), .addInstanceResult(let message), .removeInstanceResult(let message),
            .arrangeResult(let message):
            message.id
        case .extensionTerminated, .openURL, .hasContentChanged: nil
        }
    }
}
