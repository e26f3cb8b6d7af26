import CLinux
import CMalloc
import Glibc

extension Daemon {
    /// Tells systemd the daemon serves, then lets go of the start-up code's pages
    /// (`ext_release_read_only_pages`, docs/ARCHITECTURE.md): they would stay mapped, and
    /// code that runs again faults back in from the page cache.
    func becomeReady() {
        notifier.ready(status: summary)
        releaseReadOnlyPages(faultedInBy: "the start-up code")
    }

    /// What a burst of launches or requests left mapped (``BurstRelease``): the free heap
    /// pages and the read-only pages its code faulted in.
    func giveBackBurstMemory() {
        _ = malloc_trim(0)
        releaseReadOnlyPages(faultedInBy: "a burst of work")
    }

    private func releaseReadOnlyPages(faultedInBy what: String) {
        let released = ext_release_read_only_pages()
        if released != 0 {
            logger.warning("could not release the read-only pages \(what) faulted in: \(String(cString: strerror(released)))")
        }
    }
}
