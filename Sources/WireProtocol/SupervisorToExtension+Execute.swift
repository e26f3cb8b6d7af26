extension SupervisorToExtension {
    /// `{"type":"execute","id":8,"verb":"toggle","data":{"on":true},"mode":"compact","maxSize":{"width":320,"height":110}}`:
    /// a host's `Action.Execute` on the widget's card (a button or toggle, as iOS 17's and
    /// Windows' widgets have). Answered by one `result`, as an `update` is: the new card.
    public struct Execute: Codable, Hashable, Sendable {
        public var id: RequestID
        /// The action's `verb`, at most ``WireLimits/maxIdentifierBytes``.
        public var verb: String
        /// The action's `data` (`null` when it had none), at most ``WireLimits/maxParamsBytes`` encoded.
        public var data: JSONValue
        public var mode: DisplayMode
        public var maxSize: Size
        /// The instance whose card it was (absent: the widget itself), and its settings.
        public var instance: String?
        public var params: JSONValue?
        public var colorScheme: ColorScheme?
        public var locale: String?
        public var scale: Double?

        /// Creates the value from its fields.
        public init(
            id: RequestID, verb: String, data: JSONValue, mode: DisplayMode, maxSize: Size, instance: String? = nil,
            params: JSONValue? = nil, environment: RenderEnvironment = RenderEnvironment()
        ) {
            self.id = id
            self.verb = verb
            self.data = data
            self.mode = mode
            self.maxSize = maxSize
            self.instance = instance
            self.params = params
            self.environment = environment
        }
    }
}
