import Glibc

/// A non-blocking stream connection on the loop: bytes in through `onData`,
/// bytes out through ``send(_:)`` with a bounded queue.
public final class Connection {
    public let fd: Int32
    private var source: EventSource?
    private var outbox: [UInt8] = []
    private var outboxStart = 0
    private var closeAfterFlush = false
    private let maxQueued: Int
    private let onData: (Connection, UnsafeRawBufferPointer) -> Void
    private let onClose: (Connection) -> Void

    /// Shared read buffer: the loop is single-threaded, one read at a time.
    nonisolated(unsafe) private static var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Takes ownership of `fd` (made non-blocking). `onClose` runs once, when the
    /// peer hangs up, on an error, or after ``close()``.
    public init(
        loop: EventLoop, fd: Int32, maxQueuedBytes: Int = 8 << 20,
        onData: @escaping (Connection, UnsafeRawBufferPointer) -> Void,
        onClose: @escaping (Connection) -> Void
    ) throws(SystemError) {
        self.fd = fd
        self.maxQueued = maxQueuedBytes
        self.onData = onData
        self.onClose = onClose
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        source = try loop.addIO(fd: fd, events: .readable) { [unowned self] events in
            self.handle(events)
        }
    }

    deinit {
        source?.cancel()
        if source != nil || fd >= 0 { Glibc.close(fd) }
    }

    /// Whether the connection is still open.
    public var isOpen: Bool { source != nil }

    /// Queues `bytes`; a peer that does not read more than the queue limit is dropped.
    public func send(_ bytes: some Collection<UInt8>) {
        guard isOpen else { return }
        if outboxStart == outbox.count {
            outbox.removeAll(keepingCapacity: true)
            outboxStart = 0
            // Fast path: write straight away, queue only what the kernel refused.
            let written = Array(bytes).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if written == bytes.count { return }
            if written < 0 && errno != EAGAIN && errno != EINTR { return close() }
            outbox.append(contentsOf: bytes.dropFirst(max(0, written)))
        } else {
            outbox.append(contentsOf: bytes)
        }
        if outbox.count - outboxStart > maxQueued { return close() }
        source?.setIOEvents([.readable, .writable])
    }

    /// Closes once everything queued has been written.
    public func closeWhenFlushed() {
        if outboxStart == outbox.count { close() } else { closeAfterFlush = true }
    }

    /// Reads what the peer has already written (at most `maxReads` buffers), now, without
    /// waiting for the loop: e.g. a child's last output, once the child is known to be gone.
    public func drain(maxReads: Int = 16) {
        readAvailable(maxReads: maxReads)
    }

    /// Closes now, dropping anything queued.
    public func close() {
        guard let source else { return }
        source.cancel()
        self.source = nil
        onClose(self)
    }

    private func handle(_ events: IOEvents) {
        if events.contains(.writable) { flush() }
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) {
            readAvailable(maxReads: Self.readsPerWakeup)
        }
    }

    private func flush() {
        while outboxStart < outbox.count {
            let written = outbox[outboxStart...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return }
                return close()
            }
            outboxStart += written
        }
        source?.setIOEvents(.readable)
        if closeAfterFlush { close() }
    }

    /// Reads per wake-up (256 KiB): a peer that floods gets its turn like every other
    /// source instead of holding the loop until it stops writing; the loop comes back
    /// while more is waiting.
    private static let readsPerWakeup = 4

    private func readAvailable(maxReads: Int) {
        var reads = 0
        while isOpen, reads < maxReads {
            let count = Connection.readBuffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                reads += 1
                Connection.readBuffer.withUnsafeBytes { onData(self, UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                if count < Connection.readBuffer.count { return }
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 && errno == EAGAIN {
                return
            } else {
                return close()
            }
        }
    }
}
