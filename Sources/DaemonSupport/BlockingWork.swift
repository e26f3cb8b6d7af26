import EventLoop

/// Where work that blocks on the disk runs: beside the loop (``BlockingWorker``), so that
/// the loop's turns stay short, or inline where there is no loop (in-process tests on a
/// virtual clock, whose disk is a temporary directory).
package protocol BlockingWork: AnyObject {
    /// Runs `work`, then `completion` with its result on the loop's thread.
    func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then completion: @escaping (Result) -> Void)
    /// Blocks until all work given has run and its completions have run.
    func finish()
}

extension BlockingWorker: BlockingWork {}

/// Runs each job at once, completion included.
package final class InlineWork: BlockingWork {
    package init() {}

    package func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then completion: @escaping (Result) -> Void) {
        completion(work())
    }

    package func finish() {}
}
