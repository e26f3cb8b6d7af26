/// A share of a whole, written in config as `85%` (fractions such as `92.5%` are allowed).
public struct Share: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// In 0...1.
    public var fraction: Double

    /// A share of `fraction` (in 0...1) of the whole.
    public init(_ fraction: Double) { self.fraction = fraction }

    /// Orders by fraction.
    public static func < (lhs: Share, rhs: Share) -> Bool { lhs.fraction < rhs.fraction }

    /// What a share must look like, for error messages.
    static let expectedForm = #"a percentage from 0% to 100% such as "85%""#

    /// The share of `size`, rounded down to whole bytes.
    public func of(_ size: ByteSize) -> ByteSize {
        ByteSize(UInt64(Double(size.bytes) * fraction))
    }

    /// The config spelling, `85%`.
    public var description: String {
        let percent = fraction * 100
        let whole = percent.rounded()
        return abs(percent - whole) < 1e-9 ? "\(Int(whole))%" : "\(percent)%"
    }

    /// Parses the config spelling: digits, an optional decimal fraction, then `%`; 0% to 100%.
    ///
    /// - Throws: ``ValueSyntaxError`` naming the expected form.
    public init(parsing text: String) throws(ValueSyntaxError) {
        let invalid = ValueSyntaxError("\"\(text)\" is not a share; expected \(Self.expectedForm)")
        guard text.hasSuffix("%"), let (_, afterWhole) = leadingDecimal(Substring(text.dropLast())) else {
            throw invalid
        }
        if !afterWhole.isEmpty {
            guard afterWhole.first == ".", let (_, afterFraction) = leadingDecimal(afterWhole.dropFirst()),
                afterFraction.isEmpty
            else { throw invalid }
        }
        guard let percent = Double(text.dropLast()), percent <= 100 else {
            throw ValueSyntaxError("\"\(text)\" is more than 100%; expected \(Self.expectedForm)")
        }
        self.init(percent / 100)
    }
}
