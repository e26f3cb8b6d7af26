/// A number of bytes, written in config as `512M`, `24K`, `1G` (powers of 1024) or plain bytes.
public struct ByteSize: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var bytes: UInt64

    public init(_ bytes: UInt64) { self.bytes = bytes }

    public static func < (lhs: ByteSize, rhs: ByteSize) -> Bool { lhs.bytes < rhs.bytes }

    /// The shortest exact config spelling: `24M`, `1536K`, `1000`.
    public var description: String {
        for (suffix, shift) in [("G", 30), ("M", 20), ("K", 10)] as [(String, UInt64)]
        where bytes != 0 && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(suffix)"
        }
        return "\(bytes)"
    }
}

/// A share of a whole, written in config as `85%`.
public struct Share: Sendable, Hashable, Comparable {
    /// In 0...1.
    public var fraction: Double

    public init(_ fraction: Double) { self.fraction = fraction }

    public static func < (lhs: Share, rhs: Share) -> Bool { lhs.fraction < rhs.fraction }

    /// The share of `size`, rounded down to whole bytes.
    public func of(_ size: ByteSize) -> ByteSize {
        ByteSize(UInt64(Double(size.bytes) * fraction))
    }
}
