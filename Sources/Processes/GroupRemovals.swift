import Cgroup
import DaemonSupport
import EventLoop

/// The cgroups of ended runs, removed once their killed processes are gone: watched
/// through the loop (``EmptyGroupWait``), never waited for in a blocking call. Owned by
/// the supervisor rather than by the process, so that a process removed from the
/// configuration still has its group removed, and a shutdown can wait for them all.
package final class GroupRemovals {
    private let loop: EventLoop
    private let events: EventLog
    private var pending: [String: (wait: EmptyGroupWait?, retry: EventSource?)] = [:]
    private var whenDone: [() -> Void] = []

    /// How long killed processes get to leave their group before it is given up (the next
    /// start's stale-group cleanup takes it), and how often a refused removal is retried
    /// (out of descriptors: removal reads directories).
    static let bound: Duration = .seconds(10)
    static let retryInterval: Duration = .milliseconds(50)

    init(loop: EventLoop, events: EventLog) {
        self.loop = loop
        self.events = events
    }

    /// Whether a removal is waiting.
    var isEmpty: Bool { pending.isEmpty }

    /// Removes `group` (of the process `name`) once it has no thread left, within ``bound``;
    /// only its run directories with `keepingKept` (``ControlGroup/removeRunDirectories()``).
    func remove(_ group: ControlGroup, of name: String, keepingKept: Bool = false) {
        let deadline = MonotonicInstant.current() + Self.bound
        // A removal of the run directories alone is replaced.
        pending[group.name]?.wait?.cancel()
        pending[group.name] = (nil, nil)
        let wait = EmptyGroupWait(loop: loop, group: group, until: deadline) { [unowned self] emptied, _ in
            guard emptied else { return self.giveUp(group, of: name) }
            self.attemptRemoval(group, of: name, keepingKept: keepingKept, until: deadline)
        }
        if pending[group.name] != nil { pending[group.name]?.wait = wait }
    }

    /// A new run reuses `group`: whatever is still dying in it goes on dying.
    func cancel(_ group: ControlGroup) {
        pending[group.name]?.wait?.cancel()
        pending[group.name] = nil
        finishIfDone()
    }

    /// Runs `body` once no removal is waiting (at once when none is).
    package func whenAllDone(_ body: @escaping () -> Void) {
        whenDone.append(body)
        finishIfDone()
    }

    private func attemptRemoval(_ group: ControlGroup, of name: String, keepingKept: Bool, until deadline: MonotonicInstant) {
        do {
            if keepingKept { try group.removeRunDirectories() } else { try group.remove() }
            settle(group)
        } catch {
            guard MonotonicInstant.current() < deadline else {
                events.record(.error, name, "remove \(group): \(error)")
                return settle(group)
            }
            pending[group.name] = (
                nil,
                loop.addTimer(after: Self.retryInterval) { [unowned self] in
                    self.attemptRemoval(group, of: name, keepingKept: keepingKept, until: deadline)
                }
            )
        }
    }

    private func giveUp(_ group: ControlGroup, of name: String) {
        events.record(.error, name, "\(group) still has threads \(Self.bound.formatted) after the kill: left for the next start's cleanup")
        settle(group)
    }

    private func settle(_ group: ControlGroup) {
        pending[group.name] = nil
        finishIfDone()
    }

    private func finishIfDone() {
        guard pending.isEmpty, !whenDone.isEmpty else { return }
        let bodies = whenDone
        whenDone = []
        for body in bodies { body() }
    }
}
