/// The armed timers, a binary min-heap on the latest time each may fire. Every timer knows
/// its place (`heapIndex`), so that cancelling or rescheduling one is O(log n) and leaves
/// nothing behind to wake the loop for. The heap does not own its timers: one that is
/// freed removes itself first (``EventSource``'s `deinit` cancels it).
struct TimerHeap {
    private var timers: [Unmanaged<EventSource>] = []

    var first: EventSource? { timers.first?.takeUnretainedValue() }

    mutating func insert(_ timer: EventSource) {
        timer.heapIndex = timers.count
        timers.append(.passUnretained(timer))
        siftUp(timers.count - 1)
    }

    mutating func remove(_ timer: EventSource) {
        let index = timer.heapIndex
        guard index >= 0 else { return }
        timer.heapIndex = -1
        let last = timers.removeLast()
        guard index < timers.count else { return }
        timers[index] = last
        last.takeUnretainedValue().heapIndex = index
        siftDown(index)
        siftUp(index)
    }

    private func precedes(_ left: Int, _ right: Int) -> Bool {
        let (a, b) = (timers[left].takeUnretainedValue(), timers[right].takeUnretainedValue())
        return (a.latest, a.deadline) < (b.latest, b.deadline)
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        timers.swapAt(i, j)
        timers[i].takeUnretainedValue().heapIndex = i
        timers[j].takeUnretainedValue().heapIndex = j
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
