import EventLoop

/// Gives back the memory a burst of launches or control requests left mapped, once the
/// burst is over: the free heap pages (glibc's `free` returns only the top of the heap;
/// 200 launches leave about 0.4 MiB inside it, 20 `status` of 200 entries another 0.4)
/// and the read-only pages of the program and its libraries that the burst faulted in
/// (`ext_release_read_only_pages`; what serving runs faults back in). bench/README.md,
/// "The floors". One timer, pushed back by each extension's `ready` and each control
/// request, so an idle daemon never wakes up for it.
final class BurstRelease {
    /// How long after the last `ready` or request: those of a burst come closer together.
    static let quietPeriod: Duration = .seconds(1)
    private let loop: EventLoop
    private let release: () -> Void
    private lazy var timer = loop.addTimer(after: Self.quietPeriod, accuracy: .milliseconds(250)) { [unowned self] in self.release() }

    /// `release` gives the memory back (``Daemon/giveBackBurstMemory()``); tests count its calls.
    init(loop: EventLoop, release: @escaping () -> Void) {
        self.loop = loop
        self.release = release
    }

    func worked() {
        timer.reschedule(at: loop.now + Self.quietPeriod)
    }
}
