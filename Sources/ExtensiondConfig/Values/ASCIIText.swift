/// Small ASCII helpers shared by the value parsers and the TOML scanner.

/// Reads the decimal digits at the start of `text` as an unsigned number.
///
/// Returns `nil` when there are no digits or the number does not fit in `UInt64`.
/// Only ASCII digits count: no sign, no spaces, no underscores.
func leadingDecimal(_ text: Substring) -> (value: UInt64, rest: Substring)? {
    let digits = text.prefix { $0.isASCII && $0.isNumber }
    guard !digits.isEmpty, let value = UInt64(digits) else { return nil }
    return (value, text[digits.endIndex...])
}

extension Unicode.Scalar {
    /// `A`-`Z`, `a`-`z` or `0`-`9`: the characters config syntax treats as plain.
    var isASCIILetterOrDigit: Bool {
        isASCII && (properties.isAlphabetic || ("0"..."9").contains(self))
    }
}
