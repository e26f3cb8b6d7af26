/// The journal's native protocol: an entry is its fields, each `NAME=value\n`, or, for a
/// value holding a newline, `NAME\n`, the value's length as 64-bit little-endian, the
/// value and `\n` (systemd's "Native Journal Protocol").
enum JournalDatagram {
    static func encode(_ entry: JournalEntry) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entry.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 10 })
        for field in entry.fields {
            bytes += field.name.utf8
            if field.value.utf8.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(field.value.utf8.count).littleEndian) { bytes += $0 }
            } else {
                bytes.append(UInt8(ascii: "="))
            }
            bytes += field.value.utf8
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
