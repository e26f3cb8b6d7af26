#if canImport(Glibc)
import Glibc
#endif

/// A notification as a file descriptor for the daemon's event loop: a cgroup
/// v1 eventfd, an inotify watch of a cgroup v2 events file, or a PSI trigger.
///
/// Register ``fileDescriptor`` for ``readiness``; when it fires, call
/// ``acknowledge()`` and then read the state it announced (usage, counters).
/// The descriptor is closed, and the kernel registration dropped, when the
/// source goes away.
public final class CgroupEventSource: Sendable, CustomStringConvertible {
    /// The poll events the descriptor signals with.
    public enum Readiness: Sendable {
        /// `EPOLLIN` (eventfd, inotify).
        case readable
        /// `EPOLLPRI` (PSI triggers).
        case priority

        /// The bits for `poll`/`epoll`.
        public var pollEvents: Int16 {
            switch self {
            case .readable: Int16(POLLIN)
            case .priority: Int16(POLLPRI)
            }
        }
    }

    enum Kind {
        case eventCounter
        case fileWatch
        case pressureTrigger
    }

    /// The descriptor to watch (non-blocking, close-on-exec).
    public let fileDescriptor: Int32
    /// What the event loop waits for on it.
    public let readiness: Readiness
    /// What it watches, for logs: `oom of /sys/fs/cgroup/memory/x`.
    public let description: String
    private let kind: Kind

    init(fileDescriptor: Int32, kind: Kind, description: String) {
        self.fileDescriptor = fileDescriptor
        self.kind = kind
        self.readiness = kind == .pressureTrigger ? .priority : .readable
        self.description = description
    }

    /// Consumes pending notifications so that the descriptor stops being
    /// ready; returns how many there were (0 when none).
    @discardableResult
    public func acknowledge() throws(CgroupError) -> UInt64 {
        switch kind {
        case .eventCounter:
            var count: UInt64 = 0
            guard Glibc.read(fileDescriptor, &count, 8) == 8 else {
                return try nothingPending(reading: "eventfd")
            }
            return count
        case .fileWatch:
            var total: UInt64 = 0
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let length = Glibc.read(fileDescriptor, &buffer, buffer.count)
                if length < 0 { return try nothingPending(reading: "inotify") + total }
                if length == 0 { return total }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= length {
                    // struct inotify_event { wd, mask, cookie, len; name[len] }
                    let nameLength = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) }
                    offset += MemoryLayout<inotify_event>.size + Int(nameLength)
                    total += 1
                }
            }
        case .pressureTrigger:
            // Polling a PSI trigger clears its pending event.
            var entry = pollfd(fd: fileDescriptor, events: Int16(POLLPRI), revents: 0)
            guard poll(&entry, 1, 0) >= 0 else { return try nothingPending(reading: "PSI trigger") }
            return entry.revents & Int16(POLLPRI) != 0 ? 1 : 0
        }
    }

    /// Blocks until the source fires or `timeout` passes; true when it fired.
    /// For tests and shutdown paths: the daemon registers the descriptor instead.
    public func wait(timeout: Duration) throws(CgroupError) -> Bool {
        var entry = pollfd(fd: fileDescriptor, events: readiness.pollEvents, revents: 0)
        var outcome: Int32
        repeat {
            outcome = poll(&entry, 1, timeout.pollMilliseconds)
        } while outcome < 0 && errno == EINTR
        guard outcome >= 0 else { throw .systemCall("poll", path: description, errno: errno) }
        return outcome > 0
    }

    /// EAGAIN means nothing was pending; anything else is an error.
    private func nothingPending(reading what: String) throws(CgroupError) -> UInt64 {
        guard errno == EAGAIN || errno == EINTR else {
            throw .systemCall("read \(what) of", path: description, errno: errno)
        }
        return 0
    }

    deinit {
        close(fileDescriptor)
    }
}

extension Duration {
    /// The duration as a `poll(2)` timeout, rounded up so that a wait never
    /// ends before the duration has passed.
    var pollMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(0, milliseconds))
    }
}
