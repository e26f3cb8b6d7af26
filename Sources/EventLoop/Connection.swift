import Glibc
import Sockets

/// A non-blocking stream connection on the loop: bytes in through `onData`,
/// bytes out through ``send(_:)`` with a bounded queue.
///
/// The queue holds only what the peer has not read yet: written bytes are dropped from
/// its front as they go (not only once it empties), and a queue that grew for a burst
/// gives its memory back once drained.
public final class Connection {
    private let loop: EventLoop
    private let descriptor: FileDescriptor
    public var fd: Int32 { descriptor.rawValue }
    private var source: EventSource?
    private var outbox: [UInt8] = []
    private var outboxStart = 0
    private var closeAfterFlush = false
    private let maxQueued: Int
    /// The most bytes one wake-up reads (see ``readsPerWakeup``).
    private let maxBytesPerWakeup: Int
    private let onData: (Connection, UnsafeRawBufferPointer) -> Void
    private let onClose: (Connection) -> Void
    /// Called when everything queued has been written (the peer caught up).
    public var onDrained: (() -> Void)?

    /// Takes ownership of `fd` (made non-blocking). `onClose` runs once, when the
    /// peer hangs up, on an error, or after ``close()``. A wake-up reads at most
    /// `maxBytesPerWakeup` (a peer whose every byte costs work gets a smaller slice).
    public init(
        loop: EventLoop, fd: Int32, maxQueuedBytes: Int = 8 << 20, maxBytesPerWakeup: Int = 256 << 10,
        onData: @escaping (Connection, UnsafeRawBufferPointer) -> Void,
        onClose: @escaping (Connection) -> Void
    ) throws(SystemError) {
        self.loop = loop
        descriptor = FileDescriptor(fd)
        self.maxQueued = maxQueuedBytes
        self.maxBytesPerWakeup = max(1, maxBytesPerWakeup)
        self.onData = onData
        self.onClose = onClose
        let flags = infallibleSystemCall("F_GETFL of fd \(fd)") { fcntl(fd, F_GETFL) }
        _ = infallibleSystemCall("F_SETFL of fd \(fd)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        source = try loop.addIO(fd: fd, events: .readable) { [unowned self] events in
            self.handle(events)
        }
    }

    /// Writes what it held (as ``close()``), and cancels the source before the descriptor closes.
    deinit {
        writeHeldBytesBeforeClosing()
        forgetPeekedBytes()
        source?.cancel()
    }

    /// Whether the connection is still open.
    public var isOpen: Bool { source != nil }

    /// Written at once even while the loop runs its callbacks: for a peer whose answer is
    /// the next step of the work under way (an extension asked for an update), which a
    /// hold would only delay.
    public var writesAtOnce = false

    /// Bytes queued and not yet accepted by the kernel: held until the loop's callbacks
    /// have run (less than 64 KiB), or refused.
    public var queuedByteCount: Int { outbox.count - outboxStart }

    /// A drained queue keeps at most this much capacity; a written prefix at least this
    /// long (and at least half the queue) is dropped from the front.
    private static let compactionBytes = 64 * 1024

    /// Queues `bytes`; a peer that does not read more than the queue limit is dropped.
    ///
    /// While the loop runs its callbacks, what they send is held and written in one `send`
    /// per connection once they have all run, just before the loop waits again (or once
    /// 64 KiB are held): the daemon is not preempted mid-work by the process its write
    /// wakes, and a burst of answers costs one `send`. Outside the callbacks it is written
    /// at once, and so is it with `atOnce` (after what this connection held): for the
    /// answer a peer has been waiting for, which the rest of the callbacks' work would
    /// only delay; once the kernel has taken all of it, the loop lets that peer run first
    /// (``EventLoop/yieldToAnsweredPeer()``). Bytes keep their order; ``close()`` writes
    /// what was held first.
    public func send(_ bytes: some Collection<UInt8>, atOnce: Bool = false) {
        loop.assertInEventLoop()
        guard isOpen else { return }
        let writesNow = atOnce || writesAtOnce
        if queuedByteCount == 0 && (writesNow || !loop.isDispatching) {
            // Written straight away; only what the kernel refused is queued.
            let written = bytes.withContiguousStorageIfAvailable { write($0) } ?? Array(bytes).withUnsafeBufferPointer { write($0) }
            guard let written else { return close() }
            if written == bytes.count { return atOnce ? loop.yieldToAnsweredPeer() : () }
            outbox.append(contentsOf: bytes.dropFirst(written))
        } else {
            // A copy from contiguous storage, not element by element (the send is generic).
            if bytes.withContiguousStorageIfAvailable({ outbox.append(contentsOf: $0) }) == nil { outbox.append(contentsOf: bytes) }
            if !isAwaitingWritable {
                guard writesNow || queuedByteCount >= Self.compactionBytes else { return holdUntilTheCallbacksEnd() }
                writeQueued()
                if atOnce && isOpen && queuedByteCount == 0 { loop.yieldToAnsweredPeer() }
                return
            }
        }
        if queuedByteCount > maxQueued { return close() }
        awaitWritable()
    }

    /// Whether the loop will write the queue once its callbacks have run.
    private var isHolding = false

    private func holdUntilTheCallbacksEnd() {
        guard !isHolding else { return }
        isHolding = true
        loop.holdWrites(of: self)
    }

    /// The loop's callbacks have run: what they sent goes out.
    func writeHeldBytes() {
        isHolding = false
        writeQueued()
    }

    /// Closing or freed: what was held is written now, as it would have been without the
    /// hold (what the kernel refuses is dropped with the rest of the queue).
    private func writeHeldBytesBeforeClosing() {
        guard isHolding else { return }
        isHolding = false
        loop.stopHoldingWrites(of: self)
        if !isAwaitingWritable { _ = outbox[outboxStart...].withUnsafeBytes { write($0) } }
    }

    /// Whether the loop watches the socket for writability (bytes wait for the peer).
    private var isAwaitingWritable = false

    /// While set, nothing is read (the peer's writes wait in the kernel) but an end of file
    /// or an error, which the kernel reports anyway.
    public var isReadingPaused = false {
        didSet { if isReadingPaused != oldValue { source?.setIOEvents(interest) } }
    }

    private var interest: IOEvents {
        var events: IOEvents = isReadingPaused ? [] : .readable
        if isAwaitingWritable { events.insert(.writable) }
        return events
    }

    /// The bytes the kernel took (0 when the socket is full), or nil when the peer is gone.
    private func write(_ bytes: UnsafeRawBufferPointer) -> Int? {
        do {
            return try systemCall("send to fd \(fd)") { Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        } catch  where error.errno == EAGAIN {
            return 0
        } catch {
            return nil
        }
    }

    private func write(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        write(UnsafeRawBufferPointer(bytes))
    }

    private func awaitWritable() {
        guard !isAwaitingWritable else { return }
        isAwaitingWritable = true
        source?.setIOEvents(interest)
    }

    /// Writes the held bytes in one `send`; what the kernel refuses waits for the socket to
    /// become writable. Nothing is written ahead of bytes already waiting for that.
    private func writeQueued() {
        guard isOpen, queuedByteCount > 0 else { return }
        if !isAwaitingWritable {
            guard let written = outbox[outboxStart...].withUnsafeBufferPointer({ write($0) }) else { return close() }
            if written == queuedByteCount {
                outbox.removeAll(keepingCapacity: outbox.capacity <= Self.compactionBytes)
                outboxStart = 0
                if closeAfterFlush { close() }
                return
            }
            outboxStart += written
        }
        if queuedByteCount > maxQueued { return close() }
        awaitWritable()
    }

    /// Closes once everything queued has been written.
    public func closeWhenFlushed() {
        if outboxStart == outbox.count { close() } else { closeAfterFlush = true }
    }

    /// Gives up on a peer that stopped reading: drops what is queued except the rest of
    /// the line being written (so that the peer's next line is whole), queues `farewell`
    /// (a line) and closes once it is written, or at the owner's ``close()``.
    public func abandon(sending farewell: some Collection<UInt8>) {
        guard isOpen else { return }
        if let newline = outbox[outboxStart...].firstIndex(of: UInt8(ascii: "\n")) {
            outbox.removeSubrange((newline + 1)...)
        }
        closeAfterFlush = true
        send(farewell)
        if outboxStart == outbox.count { close() }
    }

    /// Reads what the peer has already written (at most `maxReads` buffers), now, without
    /// waiting for the loop: e.g. a child's last output, once the child is known to be gone.
    public func drain(maxReads: Int = 16) {
        readAvailable(maxReads: maxReads)
    }

    /// Closes now, dropping what waits for the peer (after writing what was held).
    public func close() {
        guard let source else { return }
        writeHeldBytesBeforeClosing()
        forgetPeekedBytes()
        source.cancel()
        self.source = nil
        onClose(self)
    }

    private func handle(_ events: IOEvents) {
        if events.contains(.writable) { flush() }
        if (events.contains(.readable) && !isReadingPaused) || events.contains(.hangup) || events.contains(.error) {
            readAvailable(maxReads: Self.readsPerWakeup, maxBytes: maxBytesPerWakeup)
        }
    }

    private func flush() {
        while outboxStart < outbox.count {
            guard let written = outbox[outboxStart...].withUnsafeBytes({ write($0) }) else { return close() }
            if written == 0 { return }
            outboxStart += written
            compact()
        }
        outbox.removeAll(keepingCapacity: outbox.capacity <= Self.compactionBytes)
        outboxStart = 0
        isAwaitingWritable = false
        source?.setIOEvents(interest)
        if closeAfterFlush { return close() }
        onDrained?()
    }

    /// Drops the written prefix once it is most of the queue: each byte is moved at most
    /// once more, and a peer that stays a little behind does not pin what it already read.
    private func compact() {
        guard outboxStart >= Self.compactionBytes, outboxStart * 2 >= outbox.count else { return }
        outbox.removeSubrange(0..<outboxStart)
        outboxStart = 0
    }

    /// Reads per wake-up (256 KiB): a peer that floods gets its turn like every other
    /// source instead of holding the loop until it stops writing; the loop comes back
    /// while more is waiting.
    private static let readsPerWakeup = 4

    /// Read by peeking while the loop runs its callbacks, and taken from the socket only once
    /// the wake-up's writes are out: for a socket whose peer waits in a blocking `read` for
    /// the answer. Taking the bytes frees the peer's send buffer, and the kernel wakes the
    /// peer for it; taken at once, that wake-up for nothing lands in the middle of the work,
    /// where it can preempt the loop, instead of beside the answer's.
    public var takesReadBytesAfterWrites = false

    /// Bytes delivered by a peek and still in the socket.
    private var peekedByteCount = 0

    /// Takes the peeked bytes from the socket: at the end of the loop's wake-up, and before
    /// any other read (nothing is delivered twice).
    func takePeekedBytes() {
        let peeked = peekedByteCount
        peekedByteCount = 0
        // Into the buffer where the peek put them: a flood's callback reads them from there.
        var taken = 0
        while taken < peeked {
            let count: Int
            do {
                count = try systemCall("read fd \(fd)") { Glibc.read(fd, loop.readBuffer.baseAddress! + taken, peeked - taken) }
            } catch {
                return close()
            }
            guard count > 0 else { return close() }
            taken += count
        }
    }

    private func forgetPeekedBytes() {
        guard peekedByteCount > 0 else { return }
        peekedByteCount = 0
        loop.stopTakingPeekedBytes(of: self)
    }

    private func readAvailable(maxReads: Int, maxBytes: Int = .max) {
        if peekedByteCount > 0 {
            loop.stopTakingPeekedBytes(of: self)
            takePeekedBytes()
        }
        var reads = 0
        var left = maxBytes
        while isOpen, reads < maxReads, left > 0 {
            let wanted = min(left, loop.readBuffer.count)
            let peeks = reads == 0 && takesReadBytesAfterWrites && loop.isDispatching
            let count: Int
            do {
                count = try systemCall("read fd \(fd)") {
                    peeks
                        ? Glibc.recv(fd, loop.readBuffer.baseAddress, wanted, Int32(MSG_PEEK | MSG_DONTWAIT))
                        : Glibc.read(fd, loop.readBuffer.baseAddress, wanted)
                }
            } catch  where error.errno == EAGAIN {
                return
            } catch {
                return close()
            }
            guard count > 0 else { return close() }
            reads += 1
            left -= count
            if peeks {
                peekedByteCount = count
                guard count == wanted else {
                    loop.takePeekedBytesAfterWrites(of: self)
                    return onData(self, UnsafeRawBufferPointer(rebasing: loop.readBuffer[..<count]))
                }
                // More waits (a flood): taken now, the same bytes read again into the buffer.
                takePeekedBytes()
                guard isOpen else { return }
            }
            onData(self, UnsafeRawBufferPointer(rebasing: loop.readBuffer[..<count]))
            if count < wanted { return }
        }
    }
}
