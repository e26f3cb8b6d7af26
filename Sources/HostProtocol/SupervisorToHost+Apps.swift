/// What the supervisor answers a containing app on `host.sock`, and the notice every host
/// that listed gets when an extension's `hasContent` changes.
extension SupervisorToHost {
    /// `{"type":"defaultsResult","id":4,"value":null}`: the extension protocol's answer to
    /// `defaults`.
    public typealias DefaultsResult = SupervisorToExtension.DefaultsResult

    /// `{"type":"reloadResult","id":5,"scheduled":["com.example.weather.widget"],"refused":[]}`:
    /// which widgets of a `reloadExtensions` update now (or right after the update in
    /// flight), and which were refused because their refresh budget is spent.
    public struct ReloadResult: Codable, Hashable, Sendable {
        public var id: RequestID
        public var scheduled: [String]
        public var refused: [String]

        /// Creates the value from its fields.
        public init(id: RequestID, scheduled: [String], refused: [String]) {
            self.id = id
            self.scheduled = scheduled
            self.refused = refused
        }
    }

    /// `{"type":"hasContentChanged","extension":"com.example.weather.widget","hasContent":false}`:
    /// pushed to the hosts that listed the extensions or subscribed to this one.
    public struct HasContentChanged: Codable, Hashable, Sendable {
        public var extensionID: String
        public var hasContent: Bool

        /// Creates the value from its fields.
        public init(extensionID: String, hasContent: Bool) {
            self.extensionID = extensionID
            self.hasContent = hasContent
        }

        private enum CodingKeys: String, CodingKey {
            case extensionID = "extension", hasContent
        }
    }
}
