#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a byte stream into lines: feed it what `read(2)` returned, then take the
/// complete lines out.
///
/// A line longer than `maxLineLength` bytes (not counting its `\n`) is an error, detected
/// as soon as it is certain, so the framer never holds more than `maxLineLength` bytes plus
/// the last chunk appended. Empty and whitespace-only lines are skipped. The framer does
/// not look inside lines: decoding them (and rejecting invalid UTF-8 or JSON) is up to
/// ``WireMessageGroup/decode(line:)``.
///
/// ```swift
/// try framer.append(chunk)
/// while let line = try framer.nextLine() { handle(try HostToSupervisor.decode(line: line)) }
/// ```
public struct LineFramer: Sendable {
    /// 1 MiB, the protocol's limit.
    public static let defaultMaxLineLength = 1 << 20

    /// The buffer capacity kept once every line has been taken out: a connection that once
    /// received a large message does not hold on to its memory while idle.
    private static let idleCapacity = 4096

    /// The longest line accepted, newline not included.
    public let maxLineLength: Int

    private var buffer: [UInt8] = []
    /// Where the first line not yet returned starts in `buffer`.
    private var start = 0
    /// How far `buffer` has been searched for a newline by `nextLine`.
    private var scanned = 0
    /// Where the unfinished line at the end of `buffer` starts (after its last newline).
    private var unfinishedStart = 0

    /// An empty framer that accepts lines of up to `maxLineLength` bytes.
    public init(maxLineLength: Int = LineFramer.defaultMaxLineLength) {
        self.maxLineLength = maxLineLength
    }

    /// The number of bytes held: received but not yet returned as lines.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Appends received bytes. Throws `oversized` when the unfinished line at the end is
    /// already longer than the limit; the framer is then unusable (end the connection).
    public mutating func append(_ bytes: some Collection<UInt8>) throws(ProtocolError) {
        compact()
        let oldCount = buffer.count
        buffer.append(contentsOf: bytes)
        try noteAppended(from: oldCount)
    }

    /// Appends what `read(2)` put in a buffer: the same as the generic `append`, without
    /// going through `Collection`'s witnesses for every byte when called from another module.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(ProtocolError) {
        compact()
        let oldCount = buffer.count
        buffer.append(contentsOf: bytes)
        try noteAppended(from: oldCount)
    }

    /// Finds where the unfinished line starts after bytes were appended at `oldCount`.
    private mutating func noteAppended(from oldCount: Int) throws(ProtocolError) {
        if let newline = buffer[oldCount...].lastIndex(of: UInt8(ascii: "\n")) {
            unfinishedStart = newline + 1
        }
        if buffer.count - unfinishedStart > maxLineLength {
            throw .oversized(limit: maxLineLength)
        }
    }

    /// The next complete, non-blank line without its newline (and without a trailing
    /// `\r`), or `nil` when no complete line is buffered.
    public mutating func nextLine() throws(ProtocolError) -> ArraySlice<UInt8>? {
        while let newline = firstNewline(from: scanned) {
            var line = buffer[start..<newline]
            start = newline + 1
            scanned = start
            if line.count > maxLineLength { throw .oversized(limit: maxLineLength) }
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if !line.allSatisfy(Self.isBlank) { return line }
        }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.idleCapacity)
            start = 0
            unfinishedStart = 0
        }
        scanned = buffer.count
        return nil
    }

    /// Drops the bytes of lines already returned, so the buffer holds only the unfinished line.
    private mutating func compact() {
        guard start > 0 else { return }
        buffer.removeSubrange(0..<start)
        scanned -= start
        unfinishedStart -= start
        start = 0
    }

    /// The first newline at or after `from`, found by `memchr`: every byte received is
    /// searched here once, and the generic search compared them one at a time.
    private func firstNewline(from: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            guard from < bytes.count, let base = bytes.baseAddress,
                let found = memchr(base + from, Int32(UInt8(ascii: "\n")), bytes.count - from)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }
}
