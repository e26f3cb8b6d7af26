extension HostToSupervisor {
    /// `{"type":"open","id":4,"extension":"com.example.weather.widget","url":"weather://today"}`:
    /// a tap on a link of the extension's snapshot. The URL goes to the extension's containing
    /// app when that app handles its scheme; the extension itself is not launched. Answered
    /// by `openResult`.
    public struct Open: Codable, Hashable, Sendable {
        public var id: RequestID
        public var extensionID: String
        public var url: String

        /// Creates the value from its fields.
        public init(id: RequestID, extensionID: String, url: String) {
            self.id = id
            self.extensionID = extensionID
            self.url = url
        }

        private enum CodingKeys: String, CodingKey {
            case id, extensionID = "extension", url
        }
    }
}
