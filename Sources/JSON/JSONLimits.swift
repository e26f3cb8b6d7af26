/// How much JSON one decode accepts: the parser refuses larger or deeper input before
/// building anything from it, so that a peer cannot exhaust the daemon's stack or memory.
public struct JSONLimits: Sendable {
    /// The most bytes one document may have.
    public var maxBytes: Int
    /// The most arrays and objects one value may be nested in.
    public var maxDepth: Int

    /// Creates limits from their values.
    public init(maxBytes: Int, maxDepth: Int) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    /// Lines of the wire and control protocols (whose framers stop at 1 MiB anyway) and the
    /// daemon's state files; the depth is the one Foundation's decoder allowed.
    public static let standard = JSONLimits(maxBytes: 16 << 20, maxDepth: 512)
}
