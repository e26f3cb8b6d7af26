/// What one HTTP server lets its peers make it hold (see docs/ for each user's figures).
public struct HTTPLimits: Sendable {
    /// Connections open at once; one more first drops the oldest that has not sent its
    /// request, and is answered 503 and closed only when every connection is answered.
    public var maxClients: Int
    /// Connections one peer address holds at once; its next one drops its own oldest idle one.
    public var maxClientsPerPeer: Int
    /// The longest request head; a longer one is answered 431.
    public var maxHeadBytes: Int
    /// The most header lines; more are answered 431.
    public var maxHeaderLines: Int
    /// The longest request body (`Content-Length`); a longer one is answered 413.
    public var maxBodyBytes: Int
    /// A client that has not sent a whole request by then is dropped.
    public var requestTimeout: Duration
    /// A whole answer not taken by then is dropped (a peer that does not read); streams
    /// are bounded by `maxQueuedBytes` instead.
    public var answerTimeout: Duration
    /// A client (a stream's reader) that leaves more unread than this is dropped.
    public var maxQueuedBytes: Int

    /// Creates limits; the defaults suit a local endpoint without bodies.
    public init(
        maxClients: Int = 16, maxClientsPerPeer: Int = 8, maxHeadBytes: Int = 8192, maxHeaderLines: Int = 64,
        maxBodyBytes: Int = 0, requestTimeout: Duration = .seconds(2), answerTimeout: Duration = .seconds(10),
        maxQueuedBytes: Int = 64 << 20
    ) {
        self.maxClients = maxClients
        self.maxClientsPerPeer = maxClientsPerPeer
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderLines = maxHeaderLines
        self.maxBodyBytes = maxBodyBytes
        self.requestTimeout = requestTimeout
        self.answerTimeout = answerTimeout
        self.maxQueuedBytes = maxQueuedBytes
    }
}
