import CMalloc
import EventLoop

/// Gives back the heap pages a burst of launches freed, once the burst is over: glibc's
/// `free` returns only the top of the heap, and 200 launches leave about 0.4 MiB of free
/// pages inside it (bench/README.md, "The floors: the daemon's memory"). One timer, pushed
/// back by each extension's `ready`, so an idle daemon never wakes up for it.
final class HeapTrim {
    /// How long after the last `ready`: those of a burst come closer together.
    static let quietPeriod: Duration = .seconds(1)
    private let loop: EventLoop
    private let trim: () -> Void
    private lazy var timer = loop.addTimer(after: Self.quietPeriod, accuracy: .milliseconds(250)) { [unowned self] in self.trim() }

    /// `trim` is glibc's `malloc_trim(0)` but in tests.
    init(loop: EventLoop, trim: @escaping () -> Void = { _ = malloc_trim(0) }) {
        self.loop = loop
        self.trim = trim
    }

    func extensionReady() {
        timer.reschedule(at: loop.now + Self.quietPeriod)
    }
}
