import CMalloc
import EventLoop

/// Gives back the heap pages a burst of launches freed, once the burst is over: glibc's
/// `free` returns only the top of the heap, and 200 launches leave about 0.4 MiB of free
/// pages inside it (bench/README.md, "The floors: the daemon's memory"). One timer, pushed
/// back by each launch, so an idle daemon never wakes up for it.
final class HeapTrim {
    /// How long after the last launch: the launches of a burst come closer together.
    static let quietPeriod: Duration = .seconds(1)
    private let loop: EventLoop
    private lazy var timer = loop.addTimer(after: Self.quietPeriod, accuracy: .milliseconds(250)) { _ = malloc_trim(0) }

    init(loop: EventLoop) {
        self.loop = loop
    }

    func launched() {
        timer.reschedule(at: loop.now + Self.quietPeriod)
    }
}
