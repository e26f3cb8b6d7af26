/// The daemon's single-threaded event loop: epoll underneath, Swift closures on top.
///
/// This module owns the loop, event sources (fds, timers, signals, child pidfds) and
/// non-blocking UNIX sockets. It must not know about extensions, hosts, policies or
/// systemd (the Systemd module pings the watchdog from a timer of the loop): it only
/// turns kernel events into callbacks.
import CLinux
import Glibc
import Sockets

/// One epoll loop. Every callback runs on the thread that calls ``run()``.
///
/// Timers share one timerfd, armed at the earliest time a timer must fire; signals share
/// one signalfd; a child is watched through its pidfd. An idle loop sleeps in
/// `epoll_wait` and makes no other system call.
public final class EventLoop {
    private let epoll: Int32
    /// Opened in `init`, not with the first timer: a daemon out of descriptors must still
    /// be able to arm timers.
    private let timerFD: Int32
    let signalFD: Int32
    /// Every registered source by token, unretained: a source removes itself when freed.
    private var sources: [UInt64: Unmanaged<EventSource>] = [:]
    private var nextToken = firstSourceToken
    /// The armed timers twice: by deadline (which may fire) and by latest time (when to wake).
    private var timersByDeadline = TimerHeap(by: .deadline)
    private var timersByLatest = TimerHeap(by: .latest)
    /// What the timerfd is set to (`nil`: disarmed), so it is re-armed only on a change.
    private var armedAt: UInt64?
    var signalMask = sigset_t()
    var signalSources: [Int32: UInt64] = [:]
    /// The iteration's time, read once after each wake-up.
    private var cachedNow: UInt64?
    private(set) var exitCode: Int32?
    private let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: EventLoop.batchSize)

    private static let batchSize = 64
    private static let timerToken: UInt64 = 0
    private static let signalToken: UInt64 = 1
    private static let firstSourceToken: UInt64 = 2

    /// Creates a loop with its epoll, timer and signal descriptors.
    public init() throws(SystemError) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw SystemError("epoll_create1") }
        timerFD = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard timerFD >= 0 else {
            let error = SystemError("timerfd_create")
            close(epoll)
            throw error
        }
        sigemptyset(&signalMask)
        signalFD = signalfd(-1, &signalMask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard signalFD >= 0 else {
            let error = SystemError("signalfd")
            close(timerFD)
            close(epoll)
            throw error
        }
        // Initialized from here on: a throw runs deinit, which closes the three.
        try add(fd: timerFD, token: Self.timerToken, events: .readable)
        try add(fd: signalFD, token: Self.signalToken, events: .readable)
    }

    deinit {
        events.deallocate()
        for fd in [timerFD, signalFD, epoll] { close(fd) }
    }

    /// Runs until ``exit(code:)``; returns the exit code.
    public func run() throws(SystemError) -> Int32 {
        while exitCode == nil {
            try iterate()
        }
        return exitCode ?? 0
    }

    /// Asks the loop to stop: no further callback of this iteration runs, and ``run()``
    /// returns `code`.
    public func exit(code: Int32 = 0) {
        exitCode = code
    }

    /// The loop's cached monotonic time of the current iteration (the clock before the
    /// first one).
    public var now: MonotonicInstant {
        MonotonicInstant(microseconds: cachedNow ?? MonotonicInstant.current().microseconds)
    }

    /// One wait and the callbacks of what it returned: due timers first, in the order of
    /// their deadlines, then descriptors in the order epoll reported them.
    private func iterate() throws(SystemError) {
        armTimerFD()
        let count = epoll_wait(epoll, events, Int32(Self.batchSize), -1)
        guard count >= 0 else {
            if errno == EINTR { return }
            throw SystemError("epoll_wait")
        }
        let now = MonotonicInstant.current().microseconds
        cachedNow = now
        fireTimers(dueBy: now)
        for index in 0..<Int(count) where exitCode == nil {
            let event = events[index]
            switch event.data.u64 {
            case Self.timerToken: drainTimerFD()
            case Self.signalToken: readSignals()
            case let token: dispatch(token, events: event.events)
            }
        }
    }

    /// The registered source of `token`. The caller's reference keeps a source that its own
    /// callback frees alive until the callback returns.
    func source(for token: UInt64) -> EventSource? {
        sources[token]?.takeUnretainedValue()
    }

    private func dispatch(_ token: UInt64, events: UInt32) {
        guard let source = source(for: token) else { return }
        switch source.role {
        case .io(_, let handler):
            handler(IOEvents(rawValue: events))
        case .child(let pidfd, let handler):
            var code: Int32 = 0
            var status: Int32 = 0
            let outcome = ext_pidfd_wait(pidfd, 1, &code, &status)
            guard outcome != 1 else { return }
            // Reaped (or not ours to reap): a pidfd stays readable, so it leaves the set.
            removeFromEpoll(source)
            if outcome == 0 { handler(ChildExit(code: code, status: status)) }
        case .timer, .signal:
            break
        }
    }

    /// Fires the timers whose deadline has come by `now`, in deadline order: those whose
    /// latest time woke the loop, and with them every other timer whose window has begun.
    /// Only timers armed when the iteration began fire: a timer a callback reschedules to a
    /// time already past fires in the next iteration.
    private func fireTimers(dueBy now: UInt64) {
        guard let first = timersByDeadline.first, first.deadline <= now else { return }
        var due: [(token: UInt64, generation: Int)] = []
        while let timer = timersByDeadline.first, timer.deadline <= now {
            disarm(timer)
            due.append((timer.token, timer.generation))
        }
        for (token, generation) in due where exitCode == nil {
            guard let timer = source(for: token), timer.generation == generation,
                  case .timer(_, let handler) = timer.role else { continue }
            handler()
        }
    }

    private func armTimerFD() {
        let wanted = timersByLatest.first?.latest
        guard wanted != armedAt else { return }
        armedAt = wanted
        var setting = itimerspec()
        if let wanted {
            // 0 would disarm: a timer due at the clock's origin fires at its first tick.
            let time = max(wanted, 1)
            setting.it_value = timespec(tv_sec: Int(time / 1_000_000), tv_nsec: Int(time % 1_000_000) * 1_000)
        }
        timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &setting, nil)
    }

    private func drainTimerFD() {
        var expirations: UInt64 = 0
        _ = read(timerFD, &expirations, MemoryLayout<UInt64>.size)
        armedAt = nil
    }

    // MARK: Registration, for EventSource and the add functions.

    func register(_ role: EventSource.Role) -> EventSource {
        let source = EventSource(loop: self, token: nextToken, role: role)
        nextToken += 1
        sources[source.token] = .passUnretained(source)
        return source
    }

    func unregister(_ source: EventSource) {
        sources[source.token] = nil
        switch source.role {
        case .io, .child: removeFromEpoll(source)
        case .timer: disarm(source)
        case .signal(let signal, _): stopWatching(signal)
        }
    }

    func add(fd: Int32, token: UInt64, events: IOEvents) throws(SystemError) {
        var event = epoll_event(events: events.rawValue, data: epoll_data_t(u64: token))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 else { throw SystemError("watch fd \(fd)") }
    }

    func modify(fd: Int32, token: UInt64, events: IOEvents) {
        var event = epoll_event(events: events.rawValue, data: epoll_data_t(u64: token))
        epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
    }

    private func removeFromEpoll(_ source: EventSource) {
        guard source.isInEpoll else { return }
        source.isInEpoll = false
        switch source.role {
        case .io(let fd, _), .child(let fd, _): epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil)
        case .timer, .signal: break
        }
    }

    /// Puts a timer in the heaps to fire in [deadline, deadline + accuracy].
    func arm(_ timer: EventSource, deadline: UInt64, accuracy: UInt64) {
        disarm(timer)
        timer.generation += 1
        timer.deadline = deadline
        let (latest, overflow) = deadline.addingReportingOverflow(accuracy)
        timer.latest = overflow ? .max : latest
        timersByDeadline.insert(timer)
        timersByLatest.insert(timer)
    }

    private func disarm(_ timer: EventSource) {
        timersByDeadline.remove(timer)
        timersByLatest.remove(timer)
    }
}
