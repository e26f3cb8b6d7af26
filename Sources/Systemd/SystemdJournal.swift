import CSystemd
import Glibc

/// The journal of the running systemd through `sd_journal_sendv`: one entry per call, a
/// value with newlines or an entry too big for a datagram encoded as journald documents.
/// An entry is sent only when journald's queue has room (``ReceiverQueue``): never waiting.
public final class SystemdJournal: JournalWriting {
    /// Entries the journal refused (not running, queue full).
    public private(set) var failures = 0
    /// Where `sd_journal_sendv` sends: libsystemd's fixed path.
    private let queue = ReceiverQueue(address: "/run/systemd/journal/socket")

    public init() {}

    public func send(_ entry: JournalEntry) {
        if !queue.hasRoom() || !Self.sendv(entry) { failures += 1 }
    }

    /// Each field as `NAME=value` in one buffer, an iovec per field.
    private static func sendv(_ entry: JournalEntry) -> Bool {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for field in entry.fields {
            bytes += field.name.utf8
            bytes.append(UInt8(ascii: "="))
            bytes += field.value.utf8
            ends.append(bytes.count)
        }
        return bytes.withUnsafeMutableBytes { buffer in
            var start = 0
            let vectors = ends.map { end in
                defer { start = end }
                return iovec(iov_base: buffer.baseAddress! + start, iov_len: end - start)
            }
            return ext_sd_journal_sendv(vectors, Int32(vectors.count)) == 0
        }
    }
}
