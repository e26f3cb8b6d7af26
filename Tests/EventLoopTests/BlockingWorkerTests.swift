import EventLoop
import Glibc
import Synchronization
import Testing

/// The blocking worker: jobs run on a thread of their own, one at a time and in order,
/// completions on the loop in the same order; `finish` waits; signals stay the loop's.
@Suite struct BlockingWorkerTests {
    @Test func jobsRunOffTheLoopInOrderAndCompleteOnTheLoopInOrder() throws {
        let loop = try EventLoop()
        let worker = try BlockingWorker(loop: loop)
        let loopThread = pthread_self()
        let running = Mutex(0)
        var completed: [Int] = []
        for index in 0..<20 {
            worker.run(
                { () -> (Int, Bool) in
                    let overlapping = running.withLock { count in
                        count += 1
                        return count > 1
                    }
                    usleep(1000)
                    running.withLock { $0 -= 1 }
                    return (index, pthread_equal(pthread_self(), loopThread) != 0 || overlapping)
                },
                then: { index, wrong in
                    #expect(!wrong, "job \(index) ran on the loop's thread or beside another job")
                    #expect(pthread_equal(pthread_self(), loopThread) != 0)
                    completed.append(index)
                    if completed.count == 20 { loop.exit() }
                })
        }
        #expect(completed.isEmpty, "no completion runs before the loop does")
        let guardTimer = loop.addTimer(after: .seconds(10)) { loop.exit(code: 1) }
        #expect(try loop.run() == 0)
        #expect(completed == Array(0..<20))
        _ = guardTimer
    }

    @Test func finishWaitsForEveryJobAndRunsItsCompletion() throws {
        let loop = try EventLoop()
        let worker = try BlockingWorker(loop: loop)
        var completed = 0
        for _ in 0..<5 {
            worker.run({ usleep(5000) }, then: { completed += 1 })
        }
        worker.finish()
        #expect(completed == 5)
        worker.finish()
    }

    /// The loop reads signals from its signalfd, which sees only signals no thread takes:
    /// the worker's thread blocks them all (SIGTERM taken there would end the daemon).
    @Test func theWorkersThreadBlocksEverySignal() throws {
        let loop = try EventLoop()
        let worker = try BlockingWorker(loop: loop)
        var unblocked: [Int32]?
        worker.run(
            { () -> [Int32] in
                var mask = sigset_t()
                pthread_sigmask(SIG_BLOCK, nil, &mask)
                return [SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGUSR1, SIGURG].filter { sigismember(&mask, $0) != 1 }
            }, then: { unblocked = $0 })
        worker.finish()
        #expect(unblocked == [])
    }

    /// Under the daemon's `SCHED_RESET_ON_FORK` a new thread starts at nice 0: a worker that
    /// keeps the loop's priority (the one that calls `process_mrelease`) takes the loop
    /// thread's nice before its job, even one set after the worker started, and any other
    /// keeps 0. Read back from the kernel for each thread. A negative nice needs
    /// CAP_SYS_NICE (CI runs as root).
    @Test(.enabled(if: geteuid() == 0, "a negative nice needs CAP_SYS_NICE"))
    func aWorkerThatKeepsTheLoopsPriorityRunsAtTheLoopsNice() throws {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let (nice, policy) = (getpriority(which, 0), sched_getscheduler(0))
        var parameters = sched_param(sched_priority: 0)
        let loop = try EventLoop()
        let keeping = try BlockingWorker(loop: loop, keepsLoopPriority: true)
        let resetOnFork: Int32 = 0x4000_0000
        #expect(sched_setscheduler(0, SCHED_OTHER | resetOnFork, &parameters) == 0)
        #expect(setpriority(which, 0, -5) == 0)
        defer {
            _ = setpriority(which, 0, nice)
            _ = sched_setscheduler(0, policy, &parameters)
        }
        let plain = try BlockingWorker(loop: loop)
        var nices: [Int32] = []
        for worker in [keeping, plain] {
            worker.run({ getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }, then: { nices.append($0) })
            worker.finish()
        }
        #expect(nices == [-5, 0])
    }
}
