import Cgroup
import EventLoop
import Glibc
import LinuxProcess

/// Waits, through the event loop, until a killed cgroup (a pressure victim's, a run's
/// being removed) has no thread left or a deadline passes, as lmkd waits for its kill
/// (`is_waiting_for_kill`): on a pidfd of each of the group's processes (readable when it
/// has exited), on `cgroup.events` (v2), and by re-reading the group's threads on a
/// timer, since an exiting thread of a process that left the listing has no pidfd to wait
/// on: every millisecond on v1; on v2, where `populated 0` announces that thread too,
/// every 10 ms only in case a notification is missed, so as not to compete with the
/// victim's exit for a CPU. Never blocks.
package final class EmptyGroupWait {
    private let group: ControlGroup
    private let onEnd: (_ emptied: Bool, _ at: MonotonicInstant) -> Void
    /// A pidfd per process of the group, each with its loop source.
    private var exits: [(descriptor: ProcessDescriptor, source: EventSource)] = []
    /// v2: the watch of `cgroup.events`.
    private var population: (watch: CgroupEventSource, source: EventSource)?
    private var reread: EventSource?
    private var deadline: EventSource?
    /// Whether `onEnd` ran (or the wait was cancelled); `onEnd` may run within `init`.
    package private(set) var isOver = false

    /// How often the group's threads are read again while it is populated, without and
    /// with a watch of `cgroup.events`.
    static let rereadInterval: Duration = .milliseconds(1)
    static let watchedRereadInterval: Duration = .milliseconds(10)

    /// Starts waiting for `group`; `onEnd` runs once, on the loop, with whether the group
    /// emptied and when. When it is empty already, `onEnd` runs before this returns.
    package init(
        loop: EventLoop, group: ControlGroup, until deadline: MonotonicInstant,
        onEnd: @escaping (_ emptied: Bool, _ at: MonotonicInstant) -> Void
    ) {
        self.group = group
        self.onEnd = onEnd
        guard !check() else { return }
        // A process that is gone already cannot be opened; the next reading drops it.
        for pid in (try? group.processes()) ?? [] {
            guard let descriptor = try? ProcessDescriptor.open(pid: pid),
                let source = try? loop.addIO(fd: descriptor.fileDescriptor, events: .readable, handler: { [unowned self] _ in self.exited(pid) })
            else { continue }
            exits.append((descriptor, source))
        }
        if let watch = try? group.populationWatch(),
            let source = try? loop.addIO(
                fd: watch.fileDescriptor, events: .readable,
                handler: { [unowned self] _ in
                    _ = try? self.population?.watch.acknowledge()
                    self.check()
                })
        {
            population = (watch, source)
        }
        let interval = population == nil ? Self.rereadInterval : Self.watchedRereadInterval
        reread = loop.addTimer(after: interval) { [unowned self] in
            guard !self.check() else { return }
            self.reread?.reschedule(at: .current() + interval)
        }
        self.deadline = loop.addTimer(at: deadline) { [unowned self] in self.end(emptied: false) }
    }

    /// A wait dropped while still waiting stops watching first: its pidfds must leave the
    /// loop before they close (the tuples would release each pidfd before its source).
    deinit { cancel() }

    /// Stops waiting without an answer (the daemon stops). Sources go before their
    /// descriptors, which close when released.
    package func cancel() {
        isOver = true
        for exit in exits { exit.source.cancel() }
        exits = []
        population?.source.cancel()
        population = nil
        reread = nil
        deadline = nil
    }

    /// A pidfd turned readable: that process is gone. It stays readable, so it is no
    /// longer watched.
    private func exited(_ pid: pid_t) {
        if let index = exits.firstIndex(where: { $0.descriptor.pid == pid }) {
            exits[index].source.cancel()
            exits.remove(at: index)
        }
        check()
    }

    /// Ends the wait when no thread is left (or the group is gone); returns whether it did.
    @discardableResult
    private func check() -> Bool {
        guard !isOver else { return true }
        let empty: Bool
        do throws(CgroupError) {
            empty = try group.isEmpty()
        } catch .systemCall(_, _, ENOENT) {
            empty = true
        } catch {
            empty = false
        }
        if empty { end(emptied: true) }
        return empty
    }

    private func end(emptied: Bool) {
        guard !isOver else { return }
        let at = MonotonicInstant.current()
        cancel()
        onEnd(emptied, at)
    }
}
