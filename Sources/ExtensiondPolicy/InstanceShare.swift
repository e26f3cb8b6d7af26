/// Admission of the instances hosts make up (a pull or `subscribe` naming one): a widget
/// keeps a bounded number of them, so that no connection and no user can take them all
/// (issue 19, item 7). Instances users added through a gallery are counted apart.
public struct InstanceShare: Sendable, Equatable {
    /// Made-up instances one connection may use of one widget.
    public var perConnection: Int
    /// Made-up instances the connections of one user may use of one widget, together.
    public var perUser: Int

    /// The daemon's bounds: a quarter and a half of the 64 made-up instances a widget may have.
    public static let standard = InstanceShare(perConnection: 16, perUser: 32)

    public init(perConnection: Int, perUser: Int) {
        self.perConnection = perConnection
        self.perUser = perUser
    }

    /// Why a connection that uses `own` made-up instances may not use one more when the
    /// connections of its user use `user` (distinct instances, its own among them); `nil`:
    /// it may. An instance it uses already is never refused (the caller does not ask).
    public func refusal(own: Int, user: Int) -> Refusal? {
        if own >= perConnection { return .connection(own) }
        if user >= perUser { return .user(user) }
        return nil
    }

    /// Which share is used up, and how many instances it holds.
    public enum Refusal: Sendable, Equatable {
        case connection(Int)
        case user(Int)
    }
}
