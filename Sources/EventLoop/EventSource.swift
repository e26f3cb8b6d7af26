import CSystemd
import Glibc
import Sockets

/// A registered source of events. The callback fires while the source is alive;
/// dropping the last reference (or ``cancel()``) removes it from the loop.
public final class EventSource {
    fileprivate var source: OpaquePointer?
    fileprivate let handler: Handler

    fileprivate enum Handler {
        case io((IOEvents) -> Void)
        case timer(() -> Void)
        case signal((Int32) -> Void)
        case child((ChildExit) -> Void)
    }

    fileprivate init(handler: Handler) { self.handler = handler }

    deinit { cancel() }

    /// Removes the source from the loop; its callback will not fire again.
    public func cancel() {
        if let source {
            sd_event_source_disable_unref(source)
            self.source = nil
        }
    }

    /// Re-arms a timer source to fire once at `deadline`.
    public func reschedule(at deadline: MonotonicInstant) {
        guard let source else { return }
        sd_event_source_set_time(source, deadline.microseconds)
        sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
    }

    /// Changes the epoll events an I/O source waits for.
    public func setIOEvents(_ events: IOEvents) {
        guard let source else { return }
        sd_event_source_set_io_events(source, events.rawValue)
    }

    fileprivate var userdata: UnsafeMutableRawPointer {
        Unmanaged.passUnretained(self).toOpaque()
    }

    fileprivate static func from(_ userdata: UnsafeMutableRawPointer?) -> EventSource {
        Unmanaged<EventSource>.fromOpaque(userdata!).takeUnretainedValue()
    }
}

/// epoll event bits.
public struct IOEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = IOEvents(rawValue: UInt32(EPOLLIN.rawValue))
    public static let writable = IOEvents(rawValue: UInt32(EPOLLOUT.rawValue))
    /// Urgent data: how PSI triggers and cgroup v1 `memory.pressure_level` report.
    public static let priority = IOEvents(rawValue: UInt32(EPOLLPRI.rawValue))
    public static let error = IOEvents(rawValue: UInt32(EPOLLERR.rawValue))
    public static let hangup = IOEvents(rawValue: UInt32(EPOLLHUP.rawValue))
}

/// How a child ended, from its pidfd.
public struct ChildExit: Sendable, Equatable {
    /// `CLD_EXITED`, `CLD_KILLED` or `CLD_DUMPED`.
    public var code: Int32
    /// The exit status, or the signal number when killed.
    public var status: Int32

    public var exited: Bool { code == CLD_EXITED }
    public var signalled: Bool { code == CLD_KILLED || code == CLD_DUMPED }

    public var description: String {
        exited ? "exited with status \(status)" : "killed by signal \(status)"
    }
}

extension EventLoop {
    /// Calls `handler` whenever `fd` has any of `events`. The fd stays owned by the caller.
    public func addIO(fd: Int32, events: IOEvents, handler: @escaping (IOEvents) -> Void) throws(SystemError) -> EventSource {
        let box = EventSource(handler: .io(handler))
        try SystemError.check(
            sd_event_add_io(event, &box.source, fd, events.rawValue, { _, _, revents, userdata in
                if case .io(let handler) = EventSource.from(userdata).handler { handler(IOEvents(rawValue: revents)) }
                return 0
            }, box.userdata),
            "watch fd \(fd)"
        )
        return box
    }

    /// Calls `handler` once at `deadline` (CLOCK_MONOTONIC). `accuracy` lets sd-event
    /// coalesce wake-ups; keep it small only where latency matters.
    public func addTimer(at deadline: MonotonicInstant, accuracy: Duration = .milliseconds(1), handler: @escaping () -> Void) throws(SystemError) -> EventSource {
        let box = EventSource(handler: .timer(handler))
        try SystemError.check(
            sd_event_add_time(event, &box.source, CLOCK_MONOTONIC, deadline.microseconds, UInt64(accuracy.wholeMicroseconds), { _, _, userdata in
                if case .timer(let handler) = EventSource.from(userdata).handler { handler() }
                return 0
            }, box.userdata),
            "add timer"
        )
        return box
    }

    /// Calls `handler` once after `delay`.
    public func addTimer(after delay: Duration, accuracy: Duration = .milliseconds(1), handler: @escaping () -> Void) throws(SystemError) -> EventSource {
        try addTimer(at: now + delay, accuracy: accuracy, handler: handler)
    }

    /// Calls `handler` on every delivery of `signal` (blocked and read through signalfd).
    public func addSignal(_ signal: Int32, handler: @escaping (Int32) -> Void) throws(SystemError) -> EventSource {
        let box = EventSource(handler: .signal(handler))
        try SystemError.check(
            sd_event_add_signal(event, &box.source, signal | Int32(SD_EVENT_SIGNAL_PROCMASK), { _, info, userdata in
                if case .signal(let handler) = EventSource.from(userdata).handler { handler(Int32(info!.pointee.ssi_signo)) }
                return 0
            }, box.userdata),
            "watch signal \(signal)"
        )
        return box
    }

    /// Calls `handler` once when the child behind `pidfd` exits, and reaps it.
    /// The pidfd stays owned by the caller.
    public func addChildExit(pidfd: Int32, handler: @escaping (ChildExit) -> Void) throws(SystemError) -> EventSource {
        let box = EventSource(handler: .child(handler))
        try SystemError.check(
            sd_event_add_child_pidfd(event, &box.source, pidfd, WEXITED, { _, info, userdata in
                if case .child(let handler) = EventSource.from(userdata).handler {
                    let info = info!.pointee
                    handler(ChildExit(code: info.si_code, status: info._sifields._sigchld.si_status))
                }
                return 0
            }, box.userdata),
            "watch child pidfd \(pidfd)"
        )
        return box
    }
}
