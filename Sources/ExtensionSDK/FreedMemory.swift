import CMalloc

/// Gives the pages that an update or a memory warning freed back to the system before the
/// extension waits idle: glibc keeps freed heap memory for later allocations, so an idle
/// widget would otherwise stay as large as its busiest moment (about 20 KiB of the demo
/// widget's heap; `bench/widgets`). One `malloc_trim` per request costs about 4 µs on a heap
/// of this size.
enum FreedMemory {
    static func release() {
        _ = malloc_trim(0)
    }
}
