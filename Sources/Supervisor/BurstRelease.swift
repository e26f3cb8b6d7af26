import EventLoop

/// Gives back the memory a burst of launches or control requests left mapped, once the
/// burst is over: the free heap pages (glibc's `free` returns only the top of the heap;
/// 200 launches leave about 0.4 MiB inside it, 20 `status` of 200 entries another 0.4)
/// and the read-only pages of the program and its libraries that the burst faulted in
/// (`ext_release_read_only_pages`; what serving runs faults back in). bench/README.md,
/// "The floors". One timer, pushed back by each extension's `ready` and each control
/// request, so an idle daemon never wakes up for it. Put off by another quiet period while
/// `isPutOff` says so (memory near `low`): the code pages given back would be faulted in
/// again by the next kill, and they free nothing the tree is charged for (they stay in
/// the page cache).
final class BurstRelease {
    /// How long after the last `ready` or request: those of a burst come closer together.
    static let quietPeriod: Duration = .seconds(1)
    private let loop: EventLoop
    private let isPutOff: () -> Bool
    private let release: () -> Void
    private lazy var timer = loop.addTimer(after: Self.quietPeriod, accuracy: .milliseconds(250)) { [unowned self] in
        if self.isPutOff() { self.worked() } else { self.release() }
    }

    /// `release` gives the memory back (``Daemon/giveBackBurstMemory()``); tests count its calls.
    init(loop: EventLoop, isPutOff: @escaping () -> Bool = { false }, release: @escaping () -> Void) {
        self.loop = loop
        self.isPutOff = isPutOff
        self.release = release
    }

    func worked() {
        timer.reschedule(at: loop.now + Self.quietPeriod)
    }
}
