import CLinux
import Glibc
import Sockets
import Synchronization

/// A thread beside the loop for work that blocks on the disk (a durable write: fsync,
/// rename), so that a slow disk never lengthens the loop's turns. Jobs run one at a time,
/// in the order they were given; each job's completion runs on the loop, in the same order,
/// when an eventfd says it is done. The thread starts with the first job.
public final class BlockingWorker {
    private let loop: EventLoop
    private let shared: Shared
    private var source: EventSource?
    private var started = false
    private var nextID: UInt64 = 0
    /// Completions of the jobs given and not yet completed, by job.
    private var completions: [UInt64: (any Sendable) -> Void] = [:]

    /// With `keepsLoopPriority`, for work on the kill path that must not queue behind the
    /// processes it frees memory for, the thread keeps the loop thread's nice, which
    /// `SCHED_RESET_ON_FORK` (the daemon's, so that what it launches runs at nice 0) would
    /// reset to 0: it starts at once, so that one made before the daemon sets that flag
    /// inherits the loop's nice (which needs no privilege), and before each job it takes the
    /// loop thread's nice as it is then (which needs CAP_SYS_NICE to go lower). Made on the
    /// loop's thread.
    public init(loop: EventLoop, keepsLoopPriority: Bool = false) throws(SystemError) {
        self.loop = loop
        shared = Shared(wakeup: try FileDescriptor("eventfd") { ext_eventfd() }, loopThread: keepsLoopPriority ? ext_gettid() : nil)
        source = try loop.addIO(fd: shared.wakeup.rawValue, events: .readable) { [unowned self] _ in completeFinished() }
        if keepsLoopPriority {
            started = true
            shared.start()
        }
    }

    deinit {
        source?.cancel()
        if started { shared.stop() }
    }

    /// Runs `work` on the worker thread, then `completion` with its result on the loop.
    public func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then completion: @escaping (Result) -> Void) {
        loop.assertInEventLoop()
        nextID += 1
        completions[nextID] = { completion($0 as! Result) }
        if !started {
            started = true
            shared.start()
        }
        shared.enqueue(nextID) { work() }
    }

    /// Blocks until every job given has run, then runs their completions (at a clean stop,
    /// or before moving away files that a job may still write).
    public func finish() {
        while !completions.isEmpty {
            var ready = pollfd(fd: shared.wakeup.rawValue, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, -1)
            completeFinished()
        }
    }

    private func completeFinished() {
        var count: UInt64 = 0
        _ = read(shared.wakeup.rawValue, &count, MemoryLayout<UInt64>.size)
        for (id, result) in shared.takeFinished() {
            completions.removeValue(forKey: id)?(result)
        }
    }

    /// What the loop's thread and the worker share: the queues under a lock, a semaphore
    /// counting the jobs waiting, and the eventfd that says some are done.
    private final class Shared: @unchecked Sendable {
        private struct Queues {
            var waiting: [(id: UInt64, work: @Sendable () -> any Sendable)] = []
            var finished: [(id: UInt64, result: any Sendable)] = []
            var stopping = false
        }

        let wakeup: FileDescriptor
        /// The loop's thread, whose nice this one keeps (`nil`: its own).
        private let loopThread: pid_t?
        private let queues = Mutex(Queues())
        private let jobsWaiting = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        private var thread = pthread_t()
        /// A job writes a few files: a small stack is plenty.
        private static let stackBytes = 256 << 10

        init(wakeup: consuming FileDescriptor, loopThread: pid_t?) {
            self.wakeup = wakeup
            self.loopThread = loopThread
            sem_init(jobsWaiting, 0, 0)
        }

        deinit {
            sem_destroy(jobsWaiting)
            jobsWaiting.deallocate()
        }

        /// Starts the thread with every signal blocked: the loop reads them from its
        /// signalfd, which only sees a signal no other thread takes.
        func start() {
            var all = sigset_t()
            var previous = sigset_t()
            sigfillset(&all)
            pthread_sigmask(SIG_BLOCK, &all, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            pthread_attr_setstacksize(&attributes, Self.stackBytes)
            let retained = Unmanaged.passRetained(self).toOpaque()
            let created = pthread_create(
                &thread, &attributes,
                { argument in
                    Unmanaged<Shared>.fromOpaque(argument!).takeRetainedValue().serve()
                    return nil
                }, retained)
            precondition(created == 0, "the blocking worker's thread could not be created: error \(created)")
        }

        func enqueue(_ id: UInt64, _ work: @escaping @Sendable () -> any Sendable) {
            queues.withLock { $0.waiting.append((id, work)) }
            sem_post(jobsWaiting)
        }

        func stop() {
            queues.withLock { $0.stopping = true }
            sem_post(jobsWaiting)
            pthread_join(thread, nil)
        }

        func takeFinished() -> [(id: UInt64, result: any Sendable)] {
            queues.withLock { queues in
                defer { queues.finished.removeAll() }
                return queues.finished
            }
        }

        /// Takes the loop thread's nice, when this thread keeps it and it differs. Refused
        /// without CAP_SYS_NICE when lower: the thread keeps what it has.
        private func followLoopPriority() {
            guard let loopThread else { return }
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            errno = 0
            let loopNice = getpriority(which, id_t(loopThread))
            guard errno == 0, loopNice != getpriority(which, 0) else { return }
            _ = setpriority(which, 0, loopNice)
        }

        private func serve() {
            while true {
                while sem_wait(jobsWaiting) != 0 && errno == EINTR {}
                let next = queues.withLock { queues in
                    queues.waiting.isEmpty ? nil : queues.waiting.removeFirst()
                }
                guard let job = next else { return }  // stopping, nothing left
                followLoopPriority()
                let result = job.work()
                queues.withLock { $0.finished.append((job.id, result)) }
                var one: UInt64 = 1
                _ = write(wakeup.rawValue, &one, MemoryLayout<UInt64>.size)
            }
        }
    }
}
