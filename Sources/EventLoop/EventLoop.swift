/// The daemon's single-threaded event loop: epoll underneath, Swift closures on top.
///
/// This module owns the loop, event sources (fds, timers, signals, child pidfds),
/// non-blocking UNIX sockets, and the one thread that does blocking work for the loop
/// (``BlockingWorker``). It must not know about extensions, hosts, policies or
/// systemd (the Systemd module pings the watchdog from a timer of the loop): it only
/// turns kernel events into callbacks.
import CLinux
import Glibc
import Sockets

/// One epoll loop. Every callback runs on the thread that calls ``run()``, and everything
/// that touches the loop (sources, timers, connections) must run there: debug builds check
/// it (``assertInEventLoop()``).
///
/// Timers share one timerfd, armed no later than the earliest time a timer must fire; signals share
/// one signalfd; a child is watched through its pidfd. An idle loop sleeps in
/// `epoll_wait` and makes no other system call. What connections send while the loop
/// dispatches is written once its callbacks have run, just before it waits again (see
/// ``Connection/send(_:)``).
public final class EventLoop {
    private let epoll: FileDescriptor
    /// Opened in `init`, not with the first timer: a daemon out of descriptors must still
    /// be able to arm timers.
    private let timerFD: FileDescriptor
    let signalFD: FileDescriptor
    /// The loop's thread: the one that created it, then the one that runs it.
    @usableFromInline var thread = pthread_self()
    /// Every registered source by token, unretained: a source removes itself when freed.
    private var sources: [UInt64: Unmanaged<EventSource>] = [:]
    private var nextToken = firstSourceToken
    /// The armed timers twice: by deadline (which may fire) and by latest time (when to wake).
    private var timersByDeadline = TimerHeap(by: .deadline)
    private var timersByLatest = TimerHeap(by: .latest)
    /// What the timerfd is set to (`nil`: disarmed or fired), never later than the earliest
    /// latest time of the armed timers.
    private var armedAt: UInt64?
    var signalMask = sigset_t()
    var signalSources: [Int32: UInt64] = [:]
    /// The iteration's time, read once after each wake-up.
    private var cachedNow: UInt64?
    private(set) var exitCode: Int32?
    /// Set while the callbacks of a wake-up run: connections hold what they send until then.
    private(set) var isDispatching = false
    /// The connections holding bytes, in the order of their first send of the iteration;
    /// unretained: a connection leaves the list when it writes, closes or is freed.
    private var holdingConnections: [Unmanaged<Connection>] = []
    /// Connections whose callbacks were given peeked bytes this wake-up.
    private var peekingConnections: [Unmanaged<Connection>] = []
    /// Whether this wake-up has yielded its CPU to a peer it answered.
    private var hasYieldedToAnsweredPeer = false
    /// The `sched_yield` calls made for answered peers, one per wake-up at most.
    package private(set) var yieldsToAnsweredPeers = 0
    private let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: EventLoop.batchSize)
    /// What its connections read goes here, one read at a time (a read's bytes are handed
    /// to a callback, which copies what it keeps). One per loop: loops on other threads
    /// (tests run many at once) must not share it. Left uninitialised, so that only the
    /// pages reads have filled are resident: most reads (requests, an extension's lines) are
    /// a few hundred bytes, and zeroing made all 64 KiB resident for the daemon's life.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    private static let batchSize = 64
    private static let timerToken: UInt64 = 0
    private static let signalToken: UInt64 = 1
    private static let firstSourceToken: UInt64 = 2
    /// Set in the token of a high-priority source (see ``EventPriority``).
    static let highPriorityBit: UInt64 = 1 << 63

    /// Creates a loop with its epoll, timer and signal descriptors.
    public init() throws(SystemError) {
        epoll = try FileDescriptor("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        timerFD = try FileDescriptor("timerfd_create") { timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC)) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        signalMask = noSignals
        signalFD = try FileDescriptor("signalfd") { signalfd(-1, &noSignals, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) }
        try add(fd: timerFD.rawValue, token: Self.timerToken, events: .readable)
        try add(fd: signalFD.rawValue, token: Self.signalToken, events: .readable)
    }

    deinit {
        events.deallocate()
        readBuffer.deallocate()
    }

    /// Traps (in debug builds; free in release builds) unless called on the loop's thread.
    @inlinable
    public func assertInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(pthread_equal(thread, pthread_self()) != 0, "called off the event loop's thread", file: file, line: line)
    }

    /// Runs until ``exit(code:)``; returns the exit code. The calling thread becomes the loop's.
    public func run() throws(SystemError) -> Int32 {
        thread = pthread_self()
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
    /// their deadlines, then high-priority descriptors, then the others, each in the order
    /// epoll reported them; then what the callbacks sent.
    private func iterate() throws(SystemError) {
        armTimerFD()
        let count = try systemCall("epoll_wait") { epoll_wait(epoll.rawValue, events, Int32(Self.batchSize), -1) }
        let now = MonotonicInstant.current().microseconds
        cachedNow = now
        isDispatching = true
        hasYieldedToAnsweredPeer = false
        fireTimers(dueBy: now)
        dispatchBatch(count: Int(count), highPriority: true)
        dispatchBatch(count: Int(count), highPriority: false)
        isDispatching = false
        writeHeldBytes()
        takePeekedBytes()
    }

    /// A callback has just written a peer the answer it waited for: the loop lets the peer
    /// run before the rest of the wake-up, once per wake-up. The kernel wakes a socket's
    /// reader on the writer's CPU as if the writer slept next (or, when that CPU is the only
    /// one awake, by choice); the loop has bookkeeping left, and the peer would wait for all
    /// of it. With nothing else runnable on this CPU, `sched_yield` returns at once.
    func yieldToAnsweredPeer() {
        guard isDispatching, !hasYieldedToAnsweredPeer else { return }
        hasYieldedToAnsweredPeer = true
        yieldsToAnsweredPeers += 1
        sched_yield()
    }

    /// Takes from each socket the bytes its callbacks were given by a peek.
    private func takePeekedBytes() {
        while let connection = peekingConnections.popLast() {
            connection.takeUnretainedValue().takePeekedBytes()
        }
    }

    /// Puts `connection` in the list whose peeked bytes are taken after the held writes.
    func takePeekedBytesAfterWrites(of connection: Connection) {
        peekingConnections.append(.passUnretained(connection))
    }

    /// Takes `connection` out of that list (it took its bytes, closed or is being freed).
    func stopTakingPeekedBytes(of connection: Connection) {
        let unmanaged = Unmanaged.passUnretained(connection).toOpaque()
        peekingConnections.removeAll { $0.toOpaque() == unmanaged }
    }

    /// Writes what each connection held, one `send` each, in the order they began holding.
    /// A send from a callback this runs (a close's) is written at once, so nothing joins
    /// the list; a connection that a close frees before its turn leaves it (the ones after
    /// move up to the index), one already written is not holding and stays.
    private func writeHeldBytes() {
        var index = 0
        while index < holdingConnections.count {
            let connection = holdingConnections[index].takeUnretainedValue()
            index += 1
            connection.writeHeldBytes()
        }
        holdingConnections.removeAll(keepingCapacity: true)
    }

    /// Puts `connection` in the list written before the loop waits again.
    func holdWrites(of connection: Connection) {
        holdingConnections.append(.passUnretained(connection))
    }

    /// Takes `connection` out of that list (it wrote, closed or is being freed).
    func stopHoldingWrites(of connection: Connection) {
        let unmanaged = Unmanaged.passUnretained(connection).toOpaque()
        holdingConnections.removeAll { $0.toOpaque() == unmanaged }
    }

    private func dispatchBatch(count: Int, highPriority: Bool) {
        for index in 0..<count where exitCode == nil {
            let event = events[index]
            guard (event.data.u64 & Self.highPriorityBit != 0) == highPriority else { continue }
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
                case .timer(_, let handler) = timer.role
            else { continue }
            handler()
        }
    }

    /// Sets the timerfd only when a timer must wake the loop before it would: a timer that
    /// was cancelled or moved later (a request's deadline, once answered) leaves it armed,
    /// and the early wake-up re-arms it. An update then costs no `timerfd_settime`.
    private func armTimerFD() {
        guard let wanted = timersByLatest.first?.latest else { return }
        if let armedAt, armedAt <= wanted { return }
        armedAt = wanted
        var setting = itimerspec()
        // 0 would disarm: a timer due at the clock's origin fires at its first tick.
        let time = max(wanted, 1)
        setting.it_value = timespec(tv_sec: Int(time / 1_000_000), tv_nsec: Int(time % 1_000_000) * 1_000)
        _ = infallibleSystemCall("timerfd_settime") { timerfd_settime(timerFD.rawValue, Int32(TFD_TIMER_ABSTIME), &setting, nil) }
    }

    private func drainTimerFD() {
        var expirations: UInt64 = 0
        // EAGAIN: the timer was re-armed since it woke the loop; nothing to drain.
        _ = try? systemCall("read timerfd") { read(timerFD.rawValue, &expirations, MemoryLayout<UInt64>.size) }
        armedAt = nil
    }

    // MARK: Registration, for EventSource and the add functions.

    func register(_ role: EventSource.Role, priority: EventPriority = .normal) -> EventSource {
        assertInEventLoop()
        let token = priority == .high ? nextToken | Self.highPriorityBit : nextToken
        let source = EventSource(loop: self, token: token, role: role)
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
        _ = try systemCall("watch fd \(fd)") { epoll_ctl(epoll.rawValue, EPOLL_CTL_ADD, fd, &event) }
    }

    /// A registered fd's events; it can fail only if the fd was closed before its source was
    /// cancelled (a bug: the number may now be another file's).
    func modify(fd: Int32, token: UInt64, events: IOEvents) {
        assertInEventLoop()
        var event = epoll_event(events: events.rawValue, data: epoll_data_t(u64: token))
        _ = infallibleSystemCall("change the events of fd \(fd)") { epoll_ctl(epoll.rawValue, EPOLL_CTL_MOD, fd, &event) }
    }

    private func removeFromEpoll(_ source: EventSource) {
        guard source.isInEpoll else { return }
        source.isInEpoll = false
        switch source.role {
        case .io(let fd, _), .child(let fd, _):
            _ = infallibleSystemCall("stop watching fd \(fd)") { epoll_ctl(epoll.rawValue, EPOLL_CTL_DEL, fd, nil) }
        case .timer, .signal: break
        }
    }

    /// Puts a timer in the heaps to fire in [deadline, deadline + accuracy].
    func arm(_ timer: EventSource, deadline: UInt64, accuracy: UInt64) {
        assertInEventLoop()
        disarm(timer)
        timer.generation += 1
        timer.deadline = deadline
        let (latest, overflow) = deadline.addingReportingOverflow(accuracy)
        timer.latest = overflow ? .max : latest
        timersByDeadline.insert(timer)
        timersByLatest.insert(timer)
    }

    /// Out of the heaps, still registered; a due firing of this iteration is skipped.
    func disarmTimer(_ timer: EventSource) {
        assertInEventLoop()
        disarm(timer)
        timer.generation += 1
    }

    private func disarm(_ timer: EventSource) {
        timersByDeadline.remove(timer)
        timersByLatest.remove(timer)
    }
}
