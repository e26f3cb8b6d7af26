extension SupervisorToHost {
    /// `{"type":"openResult","id":4,"success":true}`: the answer to `open`; `error` says why
    /// it was refused.
    public struct OpenResult: Codable, Hashable, Sendable {
        /// The `id` of the `open`.
        public var id: RequestID
        public var success: Bool
        public var error: String?

        /// Creates the value from its fields.
        public init(id: RequestID, success: Bool, error: String? = nil) {
            self.id = id
            self.success = success
            self.error = error
        }
    }
}
