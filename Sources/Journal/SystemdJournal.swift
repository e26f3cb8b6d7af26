import CSystemd
import Glibc

/// The journal of the running systemd, through `sd_journal_sendv` (one datagram per
/// entry to `/run/systemd/journal/socket`, non-blocking).
public final class SystemdJournal: JournalWriting {
    /// Entries the journal refused (not running, socket buffer full).
    public private(set) var failures = 0

    public init() {}

    public func send(_ entry: JournalEntry) {
        // All `NAME=value` items in one buffer; an iovec per item points into it.
        var buffer: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in entry.fields {
            let start = buffer.count
            buffer += field.name.utf8
            buffer.append(UInt8(ascii: "="))
            buffer += field.value.utf8
            ranges.append(start..<buffer.count)
        }
        let result = buffer.withUnsafeMutableBytes { bytes in
            let vectors = ranges.map { range in iovec(iov_base: bytes.baseAddress.map { $0 + range.lowerBound }, iov_len: range.count) }
            return sd_journal_sendv(vectors, Int32(vectors.count))
        }
        if result < 0 { failures += 1 }
    }
}
