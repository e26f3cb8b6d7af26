import ControlProtocol
import WireProtocol

/// Human-readable figures for the terminal.
enum Format {
    static func bytes(_ value: UInt64) -> String {
        let units: [(String, UInt64)] = [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)]
        for (suffix, size) in units where value >= size {
            let tenths = value * 10 / size
            return tenths % 10 == 0 || tenths >= 100 ? "\(tenths / 10)\(suffix)" : "\(tenths / 10).\(tenths % 10)\(suffix)"
        }
        return "\(value)B"
    }

    static func milliseconds(_ value: Int64) -> String {
        if value < 1000 { return "\(value)ms" }
        let seconds = value / 1000
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m\(seconds % 60)s" }
        return "\(seconds / 3600)h\(seconds % 3600 / 60)m"
    }

    /// `07:20:01.123` (UTC).
    static func timestamp(milliseconds: Int64) -> String {
        let day = milliseconds % 86_400_000
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = String(day % 1000 + 1000).dropFirst()
        return "\(two(day / 3_600_000)):\(two(day / 60_000 % 60)):\(two(day / 1000 % 60)).\(millis)"
    }

    static func microseconds(_ value: Int64) -> String {
        value < 1000 ? "\(value)µs" : value < 1_000_000 ? "\(value / 1000)ms" : "\(value / 1_000_000)s"
    }
}

/// One JSON document on one line.
enum JSONLine {
    static func line(_ value: some Encodable) -> String {
        String(decoding: ControlCodec.line(value).dropLast(), as: UTF8.self)
    }

    /// An answer as `--json` prints it: `schema`, `ok` and the keys of that answer; the
    /// keys the daemon sets to `null` because they belong to other commands are left out
    /// (objects inside keep every key).
    static func line(_ response: ControlResponse) -> String {
        let encoded = ControlCodec.line(response)
        guard case .object(let keys)? = try? ControlCodec.decode(JSONValue.self, from: encoded.dropLast()) else {
            return String(decoding: encoded.dropLast(), as: UTF8.self)
        }
        return line(JSONValue.object(keys.filter { $0.value != .null }))
    }
}

/// Left-aligned columns separated by two spaces.
enum Table {
    static func render(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = all.map { $0.map(width) }
        let columns = header.indices.map { column in widths.map { $0[column] }.max() ?? 0 }
        var text: [UInt8] = []
        text.reserveCapacity(all.count * (columns.reduce(0, +) + 2 * columns.count + 1))
        for (line, row) in all.enumerated() {
            if line > 0 { text.append(UInt8(ascii: "\n")) }
            for (column, cell) in row.enumerated() {
                if column > 0 { text += [UInt8(ascii: " "), UInt8(ascii: " ")] }
                text += cell.utf8
                if column < row.count - 1 { text += repeatElement(UInt8(ascii: " "), count: columns[column] - widths[line][column]) }
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The characters of `cell`, counted from its bytes when they are ASCII (every one is
    /// a character): the count of Characters breaks graphemes, most of a table's cost.
    private static func width(_ cell: String) -> Int {
        cell.utf8.allSatisfy { $0 < 0x80 } ? cell.utf8.count : cell.count
    }
}
