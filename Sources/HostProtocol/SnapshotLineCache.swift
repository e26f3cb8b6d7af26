/// The last `snapshot` answer line of one display mode (or instance) of a widget, for the
/// cached pulls that follow: they differ only in their `id` and `ageMs`, so a pull of an
/// unchanged snapshot copies the line around fresh digits instead of writing every field
/// again. The bytes are exactly those of ``SupervisorToHost/Snapshot/encodedLine()``: any
/// other field that differs (a new version, an error, another mode...) writes a new line.
package final class SnapshotLineCache {
    /// The fields the line was written from, `id` (when present) and `ageMs` set to 0.
    private var fields: SupervisorToHost.Snapshot?
    private var line: [UInt8] = []
    private var idDigits: Range<Int>?
    private var ageDigits: Range<Int> = 0..<0

    package init() {}

    /// The line of `snapshot`.
    package func line(for snapshot: SupervisorToHost.Snapshot) -> [UInt8] {
        var key = snapshot
        key.id = key.id.map { _ in RequestID(rawValue: 0) }
        key.ageMs = 0
        guard let fields, key == fields else {
            (line, idDigits, ageDigits) = snapshot.encodedLineAndPerPullDigits()
            fields = key
            return line
        }
        // Equal fields: the same `id` presence, so the same layout.
        let idDigits = idDigits ?? 0..<0
        var spliced: [UInt8] = []
        spliced.reserveCapacity(line.count + 32)
        spliced.append(contentsOf: line[..<idDigits.lowerBound])
        if let id = snapshot.id { JSONText.appendDecimal(id.rawValue, to: &spliced) }
        spliced.append(contentsOf: line[idDigits.upperBound..<ageDigits.lowerBound])
        JSONText.appendDecimal(snapshot.ageMs, to: &spliced)
        spliced.append(contentsOf: line[ageDigits.upperBound...])
        return spliced
    }
}
