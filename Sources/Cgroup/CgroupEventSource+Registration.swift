import CLinux
import LinuxProcess

#if canImport(Glibc)
import Glibc
#endif

extension CgroupEventSource {
    /// A trigger on the system-wide `/proc/pressure/memory`.
    public static func systemMemoryPressure(_ rule: PressureTriggerRule) throws(CgroupError) -> CgroupEventSource {
        try pressureTrigger(rule, file: "/proc/pressure/memory")
    }

    /// Opens a PSI file and installs `rule` (written with its trailing NUL).
    static func pressureTrigger(_ rule: PressureTriggerRule, file: String) throws(CgroupError) -> CgroupEventSource {
        let fd = open(file, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .systemCall("open", path: file, errno: errno) }
        let text = Array(rule.kernelText.utf8CString)
        guard Glibc.write(fd, text, text.count) >= 0 else {
            let error = errno
            close(fd)
            throw .triggerRefused(rule: rule.kernelText, path: file, errno: error)
        }
        return CgroupEventSource(fileDescriptor: fd, kind: .pressureTrigger, description: "PSI \(rule) on \(file)")
    }

    /// cgroup v1: an eventfd registered in `cgroup.event_control` on `file`
    /// of `directory`, with the file's `arguments` (threshold, level).
    /// `anchored` says how to walk the directory's files (``CgroupBackend/anchored(_:)``).
    static func registeredEventfd(
        directory: String, file: String, arguments: String?, purpose: String,
        anchored: (String) -> AnchoredPath = AnchoredPath.init
    ) throws(CgroupError) -> CgroupEventSource {
        let eventFD = ext_eventfd()
        guard eventFD >= 0 else { throw .systemCall("eventfd for", path: "\(directory)/\(file)", errno: errno) }
        let source = CgroupEventSource(fileDescriptor: eventFD, kind: .eventCounter, description: "\(purpose) of \(directory)")
        let watched = anchored("\(directory)/\(file)")
        let target = openat(watched.directory, watched.relativePath, O_RDONLY | O_CLOEXEC)
        guard target >= 0 else { throw .systemCall("open", path: watched.path, errno: errno) }
        // The registration keeps its own reference to the file.
        defer { close(target) }
        let line = ["\(eventFD)", "\(target)", arguments].compactMap { $0 }.joined(separator: " ")
        try CgroupFiles.write(line, to: anchored("\(directory)/cgroup.event_control"))
        return source
    }

    /// cgroup v2: an inotify watch that fires whenever the kernel updates `file`.
    static func fileWatch(_ file: String, purpose: String) throws(CgroupError) -> CgroupEventSource {
        let fd = ext_inotify_watch(file)
        guard fd >= 0 else { throw .systemCall("inotify_add_watch", path: file, errno: errno) }
        let source = CgroupEventSource(fileDescriptor: fd, kind: .fileWatch, description: "\(purpose) of \(file)")
        return source
    }
}
