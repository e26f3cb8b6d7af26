/// Armed timers in a binary min-heap, by deadline or by the latest time each may fire.
/// Every timer knows its place in each heap, so that cancelling or rescheduling one is
/// O(log n) and leaves nothing behind to wake the loop for. A heap does not own its
/// timers: one that is freed removes itself first (``EventSource``'s `deinit` cancels it).
struct TimerHeap {
    /// The loop keeps one heap of each order: the deadlines say which timers may fire,
    /// the latest times when the loop must wake up.
    enum Order { case deadline, latest }

    let order: Order
    private var timers: [Unmanaged<EventSource>] = []

    init(by order: Order) { self.order = order }

    var first: EventSource? { timers.first?.takeUnretainedValue() }

    mutating func insert(_ timer: EventSource) {
        setPlace(of: timer, timers.count)
        timers.append(.passUnretained(timer))
        siftUp(timers.count - 1)
    }

    mutating func remove(_ timer: EventSource) {
        let index = place(of: timer)
        guard index >= 0 else { return }
        setPlace(of: timer, -1)
        let last = timers.removeLast()
        guard index < timers.count else { return }
        timers[index] = last
        setPlace(of: last.takeUnretainedValue(), index)
        siftDown(index)
        siftUp(index)
    }

    private func place(of timer: EventSource) -> Int {
        order == .deadline ? timer.deadlineIndex : timer.latestIndex
    }

    private func setPlace(of timer: EventSource, _ index: Int) {
        if order == .deadline { timer.deadlineIndex = index } else { timer.latestIndex = index }
    }

    private func key(_ timer: EventSource) -> UInt64 {
        order == .deadline ? timer.deadline : timer.latest
    }

    private func precedes(_ left: Int, _ right: Int) -> Bool {
        let (a, b) = (timers[left].takeUnretainedValue(), timers[right].takeUnretainedValue())
        return (key(a), a.token) < (key(b), b.token)
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        timers.swapAt(i, j)
        setPlace(of: timers[i].takeUnretainedValue(), i)
        setPlace(of: timers[j].takeUnretainedValue(), j)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var smallest = parent
            let left = 2 * parent + 1
            if left < timers.count && precedes(left, smallest) { smallest = left }
            if left + 1 < timers.count && precedes(left + 1, smallest) { smallest = left + 1 }
            guard smallest != parent else { return }
            swapAt(parent, smallest)
            parent = smallest
        }
    }
}
