/// A number of bytes, written in config as `512M`, `24K`, `1G` (powers of 1024) or plain bytes.
public struct ByteSize: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The exact number of bytes.
    public var bytes: UInt64

    /// A size of exactly `bytes` bytes.
    public init(_ bytes: UInt64) { self.bytes = bytes }

    /// Orders by number of bytes.
    public static func < (lhs: ByteSize, rhs: ByteSize) -> Bool { lhs.bytes < rhs.bytes }

    /// The suffixes in config spelling, largest first.
    private static let units: [(suffix: Character, shift: UInt64)] = [("G", 30), ("M", 20), ("K", 10)]

    /// What a size must look like, for error messages.
    static let expectedForm = #"a size such as "512M", "24K" or "1G" (powers of 1024) or a whole number of bytes"#

    /// The shortest exact config spelling: `24M`, `1536K`, `1000`.
    public var description: String {
        for unit in Self.units where bytes != 0 && bytes % (1 << unit.shift) == 0 {
            return "\(bytes >> unit.shift)\(unit.suffix)"
        }
        return "\(bytes)"
    }

    /// Parses the config spelling: digits, optionally followed by exactly one of `K`, `M`, `G`.
    ///
    /// - Throws: ``ValueSyntaxError`` naming the expected form, or saying the size is too large.
    public init(parsing text: String) throws(ValueSyntaxError) {
        var number = Substring(text)
        var shift: UInt64 = 0
        if let last = number.last, let unit = Self.units.first(where: { $0.suffix == last }) {
            shift = unit.shift
            number = number.dropLast()
        }
        guard let (value, rest) = leadingDecimal(number), rest.isEmpty else {
            throw ValueSyntaxError("\"\(text)\" is not a size; expected \(Self.expectedForm)")
        }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: 1 << shift)
        guard !overflow else { throw ValueSyntaxError("\"\(text)\" is too large for a size") }
        self.init(bytes)
    }
}

extension ByteSize {
    /// The range of `disk_max`: an ext4 file system needs some room of its own, and the
    /// image is allocated in full, so a size past 1 TiB is a mistake.
    public static let diskSizes: ClosedRange<UInt64> = (4 << 20)...(1 << 40)
}
