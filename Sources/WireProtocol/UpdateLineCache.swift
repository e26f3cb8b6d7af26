/// The last `update` line sent to one run: the next update of the same mode, size,
/// instance and environment differs only in its `id`, so its line copies that one around
/// fresh digits instead of writing every field again. The bytes are exactly those of
/// ``SupervisorToExtension/Update/encodedLine()``. Fields are compared by their bytes
/// (`String` equality is canonical equivalence, `Double`'s makes `-0` equal `0`); an
/// update with `params` is always written anew (its tree's equality is not its bytes').
package final class UpdateLineCache {
    private var fields: SupervisorToExtension.Update?
    private var line: [UInt8] = []
    private var idDigits: Range<Int> = 0..<0

    package init() {}

    /// The line of `update`.
    package func line(for update: SupervisorToExtension.Update) -> [UInt8] {
        guard let fields, Self.sameBytesButID(update, fields) else {
            (line, idDigits) = update.encodedLineAndIDDigits()
            fields = update.params == nil ? update : nil
            return line
        }
        var spliced: [UInt8] = []
        spliced.reserveCapacity(line.count + 8)
        spliced.append(contentsOf: line[..<idDigits.lowerBound])
        JSONText.appendDecimal(update.id.rawValue, to: &spliced)
        spliced.append(contentsOf: line[idDigits.upperBound...])
        return spliced
    }

    /// Whether every field but `id` of `a`, without `params`, is written as `b`'s.
    private static func sameBytesButID(_ a: SupervisorToExtension.Update, _ b: SupervisorToExtension.Update) -> Bool {
        a.params == nil && b.params == nil && a.mode == b.mode && a.maxSize == b.maxSize && a.reason == b.reason
            && a.modeChanged == b.modeChanged && a.colorScheme == b.colorScheme && a.scale?.bitPattern == b.scale?.bitPattern
            && sameBytes(a.instance, b.instance) && sameBytes(a.locale, b.locale)
    }
}
