/// The last `snapshot` line of one display mode (or instance) of a widget, for the answers
/// that follow: those of one snapshot differ only in their `id` (present or not), `result`,
/// `ageMs`, `stale` and `expired`, so an answer of an unchanged snapshot copies the line
/// around those fields instead of writing every field again (cached pulls, and the push
/// that revalidated a snapshot with the next pull's answer once it expired). The bytes are
/// exactly those of ``SupervisorToHost/Snapshot/encodedLine()``: any other field that
/// differs (a new version, an error, another mode...) writes a new line.
package final class SnapshotLineCache {
    /// The fields the line was written from, with those an answer changes cleared.
    private var fields: SupervisorToHost.Snapshot?
    private var line: [UInt8] = []
    private var layout = SupervisorToHost.Snapshot.PerPullFields(id: 0..<0, idDigits: nil, resultValue: 0..<0, ageDigits: 0..<0, flags: 0..<0)
    /// The line's own per-answer fields but the digits: a cached pull's answer keeps them.
    private var shape = Shape(hasID: false, result: .cached, stale: false, expired: false)

    private struct Shape: Equatable {
        var hasID: Bool
        var result: SnapshotResult
        var stale: Bool
        var expired: Bool
    }

    package init() {}

    /// The line of `snapshot`.
    package func line(for snapshot: SupervisorToHost.Snapshot) -> [UInt8] {
        var key = snapshot
        key.id = nil
        key.result = .cached
        key.ageMs = 0
        key.stale = false
        key.expired = false
        let shape = Shape(hasID: snapshot.id != nil, result: snapshot.result, stale: snapshot.stale, expired: snapshot.expired)
        guard let fields, key == fields, Self.sameStringBytes(key, fields) else {
            (line, layout) = snapshot.encodedLineAndPerPullFields()
            fields = key
            self.shape = shape
            return line
        }
        return shape == self.shape ? withNewDigits(snapshot) : reshaped(snapshot, shape)
    }

    /// The line of the same layout (a cached pull's): new digits of `id` and `ageMs`.
    private func withNewDigits(_ snapshot: SupervisorToHost.Snapshot) -> [UInt8] {
        let idDigits = layout.idDigits ?? layout.id
        var spliced: [UInt8] = []
        spliced.reserveCapacity(line.count + 32)
        spliced.append(contentsOf: line[..<idDigits.lowerBound])
        if let id = snapshot.id { JSONText.appendDecimal(id.rawValue, to: &spliced) }
        spliced.append(contentsOf: line[idDigits.upperBound..<layout.ageDigits.lowerBound])
        JSONText.appendDecimal(snapshot.ageMs, to: &spliced)
        spliced.append(contentsOf: line[layout.ageDigits.upperBound...])
        return spliced
    }

    /// The line with every per-answer field written anew; kept with its layout, as the
    /// answers that follow (cached pulls after a revalidation) are most likely of its shape.
    private func reshaped(_ snapshot: SupervisorToHost.Snapshot, _ shape: Shape) -> [UInt8] {
        var spliced: [UInt8] = []
        spliced.reserveCapacity(line.count + 48)
        spliced.append(contentsOf: line[..<layout.id.lowerBound])
        let idStart = spliced.count
        var idDigits: Range<Int>?
        if let id = snapshot.id {
            Self.append(",\"id\":", to: &spliced)
            let digitsStart = spliced.count
            JSONText.appendDecimal(id.rawValue, to: &spliced)
            idDigits = digitsStart..<spliced.count
        }
        let idField = idStart..<spliced.count
        spliced.append(contentsOf: line[layout.id.upperBound..<layout.resultValue.lowerBound])
        let resultStart = spliced.count
        JSONText.appendString(snapshot.result.rawValue, to: &spliced)
        let resultValue = resultStart..<spliced.count
        spliced.append(contentsOf: line[layout.resultValue.upperBound..<layout.ageDigits.lowerBound])
        let ageStart = spliced.count
        JSONText.appendDecimal(snapshot.ageMs, to: &spliced)
        let ageDigits = ageStart..<spliced.count
        spliced.append(contentsOf: line[layout.ageDigits.upperBound..<layout.flags.lowerBound])
        let flagsStart = spliced.count
        Self.append(snapshot.stale ? ",\"stale\":true" : ",\"stale\":false", to: &spliced)
        if snapshot.expired { Self.append(",\"expired\":true", to: &spliced) }
        let flags = flagsStart..<spliced.count
        spliced.append(contentsOf: line[layout.flags.upperBound...])
        line = spliced
        layout = .init(id: idField, idDigits: idDigits, resultValue: resultValue, ageDigits: ageDigits, flags: flags)
        self.shape = shape
        return spliced
    }

    /// `==` holds strings equal by their canonical forms; a line holds their bytes.
    private static func sameStringBytes(_ a: SupervisorToHost.Snapshot, _ b: SupervisorToHost.Snapshot) -> Bool {
        sameBytes(a.extensionID, b.extensionID) && sameBytes(a.error, b.error) && sameBytes(a.instance, b.instance)
    }

    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
