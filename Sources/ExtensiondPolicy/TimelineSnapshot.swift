/// A snapshot of a timeline that becomes current at `date` (WidgetKit's timeline entry):
/// the engine serves it from then on, one version up, without calling the extension.
public struct TimelineSnapshot<Payload: Sendable>: Sendable {
    public var payload: Payload
    /// When it becomes the snapshot.
    public var date: Instant

    /// `payload`, current from `date`.
    public init(payload: Payload, date: Instant) {
        self.payload = payload
        self.date = date
    }
}

extension TimelineSnapshot: Equatable where Payload: Equatable {}
extension TimelineSnapshot: Hashable where Payload: Hashable {}
extension TimelineSnapshot: Codable where Payload: Codable {}
