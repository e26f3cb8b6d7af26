import CLinux
import Glibc
import Sockets

extension EventLoop {
    /// Calls `handler` whenever `fd` has any of `events` (level-triggered: again at every
    /// iteration while they last). The fd stays owned by the caller, who cancels the source
    /// before closing it. A `.high` source of a batch is dispatched before the `.normal` ones.
    public func addIO(
        fd: Int32, events: IOEvents, priority: EventPriority = .normal, handler: @escaping (IOEvents) -> Void
    ) throws(SystemError) -> EventSource {
        try addToEpoll(register(.io(fd: fd, handler), priority: priority), fd: fd, events: events)
    }

    /// Calls `handler` once at `deadline` (CLOCK_MONOTONIC), or up to `accuracy` later:
    /// the loop wakes at the latest time a timer allows. Keep it small only where latency
    /// matters. ``EventSource/reschedule(at:)`` arms it again, also from its own callback.
    public func addTimer(at deadline: MonotonicInstant, accuracy: Duration = .milliseconds(1), handler: @escaping () -> Void) -> EventSource {
        let microseconds = UInt64(max(0, accuracy.wholeMicroseconds))
        let timer = register(.timer(accuracy: microseconds, handler))
        arm(timer, deadline: deadline.microseconds, accuracy: microseconds)
        return timer
    }

    /// Calls `handler` once after `delay`.
    public func addTimer(after delay: Duration, accuracy: Duration = .milliseconds(1), handler: @escaping () -> Void) -> EventSource {
        addTimer(at: now + delay, accuracy: accuracy, handler: handler)
    }

    /// Calls `handler` on every delivery of `signal`, which is blocked in the calling thread
    /// while the source exists and read through the loop's signalfd. One source per signal.
    public func addSignal(_ signal: Int32, handler: @escaping (Int32) -> Void) throws(SystemError) -> EventSource {
        guard signalSources[signal] == nil else { throw SystemError("watch signal \(signal)", errno: EBUSY) }
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, signal)
        // Blocked before the signalfd asks for it: one arriving in between stays pending.
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        sigaddset(&signalMask, signal)
        do throws(SystemError) {
            _ = try systemCall("watch signal \(signal)") { signalfd(signalFD.rawValue, &signalMask, 0) }
        } catch {
            sigdelset(&signalMask, signal)
            pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
            throw error
        }
        let source = register(.signal(signal, handler))
        signalSources[signal] = source.token
        return source
    }

    /// Calls `handler` once when the child behind `pidfd` exits, and reaps it; a high-priority
    /// source (an exit frees memory and ends a kill). The pidfd stays owned by the caller.
    public func addChildExit(pidfd: Int32, handler: @escaping (ChildExit) -> Void) throws(SystemError) -> EventSource {
        try addToEpoll(register(.child(pidfd: pidfd, handler), priority: .high), fd: pidfd, events: .readable)
    }

    private func addToEpoll(_ source: EventSource, fd: Int32, events: IOEvents) throws(SystemError) -> EventSource {
        try add(fd: fd, token: source.token, events: events)
        source.isInEpoll = true
        return source
    }

    /// Reads what the signalfd holds and calls each signal's source.
    func readSignals() {
        var infos = [signalfd_siginfo](repeating: signalfd_siginfo(), count: 8)
        let read = try? systemCall("read signalfd") { infos.withUnsafeMutableBytes { Glibc.read(signalFD.rawValue, $0.baseAddress, $0.count) } }
        guard let bytes = read, bytes > 0 else { return }
        for info in infos.prefix(bytes / MemoryLayout<signalfd_siginfo>.size) where exitCode == nil {
            let signal = Int32(info.ssi_signo)
            guard let token = signalSources[signal], let source = source(for: token),
                case .signal(_, let handler) = source.role
            else { continue }
            handler(signal)
        }
    }

    /// Stops reading `signal` and unblocks it, as its source is gone.
    func stopWatching(_ signal: Int32) {
        signalSources[signal] = nil
        sigdelset(&signalMask, signal)
        _ = infallibleSystemCall("stop watching signal \(signal)") { signalfd(signalFD.rawValue, &signalMask, 0) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, signal)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }
}
