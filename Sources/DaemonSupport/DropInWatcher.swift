import EventLoop
import Glibc
import Sockets

/// Watches the drop-in directories (the packages' and `<dir>/<name>.d/`) through inotify on
/// the event loop, so that an app's drop-in that appears, changes or disappears takes effect
/// without a command: `onChange` runs once they have been quiet for ``settle`` (a package
/// manager writes several files; an editor writes one in steps). A directory may come and go:
/// its nearest existing ancestor is watched for it.
package final class DropInWatcher {
    /// Quiet time after the last change before the reload (docs/CONFIG.md, "Drop-ins").
    package static let settle = Duration.milliseconds(300)

    /// One watched directory and the watch that waits for it to exist.
    private struct Watched {
        let path: String
        var ancestorWatch: Int32 = -1
        var directoryWatch: Int32 = -1
    }

    package let directories: [String]
    private let loop: EventLoop
    private let fd: Int32
    private var source: EventSource?
    private var watched: [Watched]
    private var settleTimer: EventSource?
    private let onChange: () -> Void

    package init(loop: EventLoop, directories: [String], onChange: @escaping () -> Void) throws(SystemError) {
        self.loop = loop
        self.directories = directories
        self.onChange = onChange
        watched = directories.map { Watched(path: $0) }
        fd = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        guard fd >= 0 else { throw SystemError("inotify_init1") }
        for index in watched.indices { rewatch(index) }
        do {
            source = try loop.addIO(fd: fd, events: .readable) { [unowned self] _ in self.readEvents() }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit {
        source?.cancel()
        settleTimer?.cancel()
        Glibc.close(fd)
    }

    /// Watches the directory when it exists, and its nearest existing ancestor for its path
    /// being completed (watches add their masks: two directories may share an ancestor).
    private func rewatch(_ index: Int) {
        let path = watched[index].path
        let mask = IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF
        watched[index].directoryWatch = inotify_add_watch(fd, path, UInt32(mask | IN_ONLYDIR | IN_MASK_ADD))
        var ancestor = path
        repeat {
            ancestor = ancestor.lastIndex(of: "/").map { String(ancestor[..<$0]) } ?? ""
            watched[index].ancestorWatch = inotify_add_watch(
                fd, ancestor.isEmpty ? "/" : ancestor, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR | IN_MASK_ADD))
        } while watched[index].ancestorWatch < 0 && !ancestor.isEmpty
        // A level made between the failed watch below and this one (`mkdir -p`) sent no event.
        if watched[index].directoryWatch < 0, let next = path.dropFirst(ancestor.count + 1).split(separator: "/").first,
            access(ancestor + "/" + next, F_OK) == 0
        {
            rewatch(index)
        }
    }

    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var changed = false
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (watch, mask, length, name) = buffer.withUnsafeBytes { bytes in
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let name = bytes[start..<min(count, start + Int(event.len))].prefix { $0 != 0 }
                    return (event.wd, event.mask, Int(event.len), String(decoding: name, as: UTF8.self))
                }
                offset += MemoryLayout<inotify_event>.size + length
                changed = handle(watch: watch, mask: mask, name: name) || changed
            }
        }
        guard changed else { return }
        if let settleTimer {
            settleTimer.reschedule(at: loop.now + Self.settle)
        } else {
            settleTimer = loop.addTimer(after: Self.settle, accuracy: .milliseconds(20)) { [unowned self] in
                self.settleTimer = nil
                self.onChange()
            }
        }
    }

    /// Whether the event changes the configuration: a `*.toml` drop-in (not a hidden file),
    /// or a directory appearing or going.
    private func handle(watch: Int32, mask: UInt32, name: String) -> Bool {
        var changed = false
        for index in watched.indices {
            if watch == watched[index].directoryWatch {
                if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                    rewatch(index)
                    changed = true
                } else if name.hasSuffix(".toml") && !name.hasPrefix(".") {
                    changed = true
                }
            } else if watch == watched[index].ancestorWatch, watched[index].directoryWatch < 0 {
                rewatch(index)
                changed = changed || watched[index].directoryWatch >= 0
            }
        }
        return changed
    }
}
