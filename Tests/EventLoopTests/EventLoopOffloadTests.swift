import EventLoop
import Glibc
import Testing

/// ``EventLoop/offload(_:then:)``: blocking work runs on a thread of its own while the loop
/// goes on, and its result comes back on the loop's thread.
@Suite struct EventLoopOffloadTests {
    @Test func workThatBlocksDoesNotHoldTheLoopAndItsResultComesBackOnTheLoop() throws {
        let loop = try EventLoop()
        let loopThread = pthread_self()
        var ticks = 0
        var result: (value: pthread_t, ticksBefore: Int, onLoop: Bool)?
        var tick: EventSource?
        tick = loop.addTimer(after: .milliseconds(1), accuracy: .zero) {
            ticks += 1
            tick?.reschedule(at: loop.now + .milliseconds(1))
        }
        try loop.offload({ () -> pthread_t in
            usleep(60_000)  // a system call that waits in the kernel
            return pthread_self()
        }) { worker in
            result = (worker, ticks, pthread_equal(pthread_self(), loopThread) != 0)
            loop.exit()
        }
        _ = try loop.run()
        let delivered = try #require(result)
        #expect(delivered.onLoop, "the result is handed over on the loop's thread")
        #expect(pthread_equal(delivered.value, loopThread) == 0, "the work ran on another thread")
        #expect(delivered.ticksBefore >= 5, "the loop went on meanwhile: \(delivered.ticksBefore) ticks of 1 ms in 60 ms")
        _ = tick
    }

    @Test func manyOffloadsEachDeliverOnceInAnyOrder() throws {
        let loop = try EventLoop()
        var delivered: [Int] = []
        for value in 0..<32 {
            try loop.offload({ value }) { result in
                delivered.append(result)
                if delivered.count == 32 { loop.exit() }
            }
        }
        let deadline = loop.addTimer(after: .seconds(10)) { loop.exit(code: 1) }
        #expect(try loop.run() == 0)
        #expect(delivered.sorted() == Array(0..<32))
        _ = deadline
    }
}
