/// What a gallery needs to draw a widget it has never run, and the answers to a managing
/// host's requests (docs/PROTOCOL.md §3, "The gallery").
extension SupervisorToHost {
    /// `{"type":"enableResult","id":1,"success":true}` — and likewise `addInstanceResult`,
    /// `removeInstanceResult`, `arrangeResult`: whether the request of that `id` was done;
    /// `error` says why not, or, with `success`, that the change is not on disk yet. The
    /// fields of `openResult`.
    public typealias ManageResult = OpenResult

    /// One setting of a widget's instances, as a form draws it: `type` is `text` (with
    /// `maxLength`), `choice` (with `choices`), `number` (with `min`, `max` and an optional
    /// `step`) or `toggle`; `default` is what an instance gets unless the user chooses.
    public struct ParameterInfo: Codable, Hashable, Sendable {
        public var name: String
        public var type: String
        /// The label, in the host's locale where a translation exists (absent: the name).
        public var displayName: String?
        public var defaultValue: JSONValue
        public var choices: [String]?
        public var min: Double?
        public var max: Double?
        public var step: Double?
        public var maxLength: Int?

        /// Creates the value from its fields.
        public init(
            name: String, type: String, displayName: String? = nil, defaultValue: JSONValue, choices: [String]? = nil,
            min: Double? = nil, max: Double? = nil, step: Double? = nil, maxLength: Int? = nil
        ) {
            self.name = name
            self.type = type
            self.displayName = displayName
            self.defaultValue = defaultValue
            self.choices = choices
            self.min = min
            self.max = max
            self.step = step
            self.maxLength = maxLength
        }

        private enum CodingKeys: String, CodingKey {
            case name, type, displayName, defaultValue = "default", choices, min, max, step, maxLength
        }
    }

    /// An instance the user added (`addInstance`), kept across restarts.
    public struct InstanceInfo: Codable, Hashable, Sendable {
        public var instance: String
        public var params: JSONValue
        /// The place it was added to, if it named one.
        public var place: String?

        /// Creates the value from its fields.
        public init(instance: String, params: JSONValue, place: String? = nil) {
            self.instance = instance
            self.params = params
            self.place = place
        }
    }
}
