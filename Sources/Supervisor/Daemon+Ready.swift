import CLinux
import Glibc

extension Daemon {
    /// Tells systemd the daemon serves, then lets go of the start-up code's pages
    /// (`ext_release_read_only_pages`, docs/ARCHITECTURE.md): they would stay mapped, and
    /// code that runs again faults back in from the page cache.
    func becomeReady() {
        notifier.ready(status: summary)
        let released = ext_release_read_only_pages()
        if released != 0 {
            logger.warning("could not release the start-up code's pages: \(String(cString: strerror(released)))")
        }
    }
}
