import EventLoop
import Glibc
import Sockets

/// Watches the drop-in directory (`<dir>/<name>.d/`) through inotify on the event loop, so
/// that an app's drop-in that appears, changes or disappears takes effect without a command:
/// `onChange` runs once the directory has been quiet for ``settle`` (a package manager writes
/// several files; an editor writes one in steps). The directory may come and go: its parent
/// is watched for it.
package final class DropInWatcher {
    /// Quiet time after the last change before the reload (docs/CONFIG.md, "Drop-ins").
    package static let settle = Duration.milliseconds(300)

    private let loop: EventLoop
    private let directory: String
    private let fd: Int32
    private var source: EventSource?
    private var parentWatch: Int32 = -1
    private var directoryWatch: Int32 = -1
    private var settleTimer: EventSource?
    private let onChange: () -> Void

    package init(loop: EventLoop, directory: String, onChange: @escaping () -> Void) throws(SystemError) {
        self.loop = loop
        self.directory = directory
        self.onChange = onChange
        fd = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        guard fd >= 0 else { throw SystemError("inotify_init1") }
        let parent = directory.lastIndex(of: "/").map { String(directory[..<$0]) } ?? "."
        parentWatch = inotify_add_watch(fd, parent.isEmpty ? "/" : parent, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR))
        guard parentWatch >= 0 else {
            let error = SystemError("inotify_add_watch \(parent)")
            Glibc.close(fd)
            throw error
        }
        watchDirectory()
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

    /// Watches the directory itself, when it exists.
    private func watchDirectory() {
        let mask = IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
        directoryWatch = inotify_add_watch(fd, directory, UInt32(mask))
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
    /// or the directory itself appearing or going.
    private func handle(watch: Int32, mask: UInt32, name: String) -> Bool {
        if watch == parentWatch {
            guard name == directory.split(separator: "/").last.map(String.init) else { return false }
            watchDirectory()
            return true
        }
        guard watch == directoryWatch else { return false }
        if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
            directoryWatch = -1
            return true
        }
        return name.hasSuffix(".toml") && !name.hasPrefix(".")
    }
}
