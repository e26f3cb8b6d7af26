extension ExtensionToSupervisor {
    /// `{"type":"cancel","id":3,"error":"the file is not an image"}`: ends the outstanding
    /// `begin` without items; the host's `perform` gets `error` (the seeds'
    /// `cancelRequestWithError`).
    public struct Cancel: Codable, Hashable, Sendable {
        /// The longest `error`, in UTF-8 bytes.
        public static let maxErrorLength = 4096

        /// The id of the outstanding `begin`.
        public var id: RequestID
        /// Why, for the host.
        public var error: String

        /// Creates the value from its fields.
        public init(id: RequestID, error: String) {
            self.id = id
            self.error = error
        }

        private enum CodingKeys: String, CodingKey {
            case id, error
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(RequestID.self, forKey: .id)
            error = try container.decodeBoundedString(forKey: .error, maxBytes: Self.maxErrorLength)
        }
    }
}
