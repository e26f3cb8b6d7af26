import CLinux
import Glibc
import Sockets

/// A registered source of events. The callback fires while the source is alive;
/// dropping the last reference (or ``cancel()``) removes it from the loop.
///
/// A source keeps its loop alive; the loop holds its sources only by their tokens, so
/// a source cancelled or freed by a callback is skipped by the rest of that iteration.
public final class EventSource {
    let loop: EventLoop
    /// The source's key in the loop (and the `data` of its epoll registration); never reused.
    let token: UInt64
    let role: Role
    /// Registered until cancelled; a fired timer or child source stays registered, disabled.
    private(set) var isRegistered = true
    /// Whether its fd is in the epoll set: removed once a child has been reaped, so that a
    /// later cancel never touches a descriptor number the caller has closed and reused.
    var isInEpoll = false

    // A timer's state: fires once, in [deadline, latest], while it is in the loop's heaps.
    var deadline: UInt64 = 0
    var latest: UInt64 = 0
    var deadlineIndex = -1
    var latestIndex = -1
    /// Counts reschedules: a timer rescheduled by an earlier callback of the same
    /// iteration is not fired for its old deadline.
    var generation = 0

    enum Role {
        case io(fd: Int32, (IOEvents) -> Void)
        case timer(accuracy: UInt64, () -> Void)
        case signal(Int32, (Int32) -> Void)
        case child(pidfd: Int32, (ChildExit) -> Void)
    }

    init(loop: EventLoop, token: UInt64, role: Role) {
        self.loop = loop
        self.token = token
        self.role = role
    }

    deinit { cancel() }

    /// Removes the source from the loop; its callback will not fire again.
    public func cancel() {
        guard isRegistered else { return }
        isRegistered = false
        loop.unregister(self)
    }

    /// Re-arms a timer source to fire once at `deadline`.
    public func reschedule(at deadline: MonotonicInstant) {
        guard isRegistered, case .timer(let accuracy, _) = role else { return }
        loop.arm(self, deadline: deadline.microseconds, accuracy: accuracy)
    }

    /// Keeps a timer source from firing until ``reschedule(at:)`` arms it again: cheaper
    /// than a new timer where one comes and goes with every request.
    public func disarm() {
        guard isRegistered, case .timer = role else { return }
        loop.disarmTimer(self)
    }

    /// Changes the epoll events an I/O source waits for.
    public func setIOEvents(_ events: IOEvents) {
        guard isRegistered, case .io(let fd, _) = role else { return }
        loop.modify(fd: fd, token: token, events: events)
    }
}

/// When a source's events are dispatched within one batch of ready descriptors (after the
/// due timers, which come first): `.high` before `.normal`, as sd-event's priorities, so that
/// what frees memory (a child's exit, a pressure trigger) goes before hosts and control.
public enum EventPriority: Sendable {
    case normal
    case high
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

    /// An exit as `waitid` reports it.
    public init(code: Int32, status: Int32) {
        self.code = code
        self.status = status
    }

    public var exited: Bool { code == CLD_EXITED }
    public var signalled: Bool { code == CLD_KILLED || code == CLD_DUMPED }

    public var description: String {
        exited ? "exited with status \(status)" : "killed by signal \(status)"
    }
}
