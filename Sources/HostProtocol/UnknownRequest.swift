/// A host written for a later protocol sends types this one does not know: it gets an
/// `error` with the request's `id` and its connection stays (docs/PROTOCOL.md §3, "Errors").
extension HostToSupervisor {
    /// The `id` of a line whose `type` is unknown, when it has a valid one.
    public static func requestID(ofUnknown line: some Collection<UInt8>) -> RequestID? {
        (try? JSONCoding.decode(IdentifiedRequest.self, from: line))?.id
    }
}

/// Any request, read for its `id` alone.
private struct IdentifiedRequest: Decodable {
    var id: RequestID?
}
