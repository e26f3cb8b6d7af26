import CLinux
import Glibc
import Sockets
import Synchronization

extension EventLoop {
    /// Runs `work` on a thread of its own, then `completion` on the loop with its result:
    /// for a system call that waits in the kernel and would hold the loop meanwhile (a v1
    /// cgroup threshold waits for an RCU grace period). `work` gets values and
    /// returns one; it must touch nothing of the loop's. The thread has every signal blocked.
    ///
    /// - Throws: ``SystemError`` when the thread or its wake-up descriptor cannot be made;
    ///   nothing has run then.
    public func offload<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then completion: @escaping (Result) -> Void) throws(SystemError) {
        assertInEventLoop()
        let delivery = try Delivery(loop: self, completion: completion)
        let slot = delivery.slot
        let wake = delivery.wake.rawValue
        do throws(SystemError) {
            try Self.startThread {
                let result = work()
                slot.value.withLock { $0 = result }
                var one: UInt64 = 1
                _ = write(wake, &one, MemoryLayout<UInt64>.size)
            }
        } catch {
            delivery.cancel()
            throw error
        }
    }

    /// A detached thread running `body`, created with every signal blocked (signals are the
    /// loop's, through its signalfd).
    private static func startThread(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        var everything = sigset_t()
        var previous = sigset_t()
        sigfillset(&everything)
        pthread_sigmask(SIG_SETMASK, &everything, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let entry = Unmanaged.passRetained(ThreadBody(body))
        var thread = pthread_t()
        let created = pthread_create(
            &thread, &attributes,
            { context in
                Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, entry.toOpaque())
        guard created == 0 else {
            entry.release()
            throw SystemError("pthread_create", errno: created)
        }
    }
}

private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}

/// Where the thread leaves its result.
private final class Slot<Result: Sendable>: Sendable {
    let value = Mutex<Result?>(nil)
}

/// One offloaded result on its way to the loop: the thread fills the slot, then wakes the
/// loop through the eventfd; the loop takes the result, stops watching, and calls back.
private final class Delivery<Result: Sendable> {
    let slot = Slot<Result>()
    let wake: FileDescriptor
    private let completion: (Result) -> Void
    /// The watch of ``wake``: its handler keeps this delivery alive until it is done.
    private var source: EventSource?

    init(loop: EventLoop, completion: @escaping (Result) -> Void) throws(SystemError) {
        self.completion = completion
        wake = try FileDescriptor("eventfd") { ext_eventfd() }
        source = try loop.addIO(fd: wake.rawValue, events: .readable) { [self] _ in self.deliver() }
    }

    /// Stops watching: the thread could not start.
    func cancel() {
        source?.cancel()
        source = nil
    }

    private func deliver() {
        guard let result = slot.value.withLock({ $0.take() }) else { return }
        cancel()
        completion(result)
    }
}
